import type { Queryable } from './database.ts';

/**
 * Runs `work` in a savepoint of the caller's transaction: a failure rolls back only the work's own
 * statements, so the transaction stays usable (to record the failure) and the error comes back as
 * a value for the caller to judge. On success the savepoint is released. An error `rethrow`
 * accepts is thrown as it is, without the rollback: one after which the whole transaction must go
 * (the database went away, a deadlock), where a rollback to the savepoint would only fail again.
 */
export async function inSavepoint<T>(
  tx: Queryable,
  name: string,
  work: () => Promise<T>,
  options: { rethrow?: (error: unknown) => boolean } = {},
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  // The name is spliced into SQL (savepoint names cannot be bound parameters).
  if (!/^\w+$/.test(name)) throw new Error(`bad savepoint name ${name}`);
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const value = await work();
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return { ok: true, value };
  } catch (error) {
    if (options.rethrow?.(error)) throw error;
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    return { ok: false, error };
  }
}
