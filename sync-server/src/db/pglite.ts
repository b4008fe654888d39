import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import type { Database, Queryable, SqlParam } from './database.ts';
import { parseInt8 } from './database.ts';
import { plannerSetStatements } from './planner.ts';

const parsers = {
  [types.INT8]: (value: string) => parseInt8(value),
};

/** Raised when another live process already holds the embedded database directory. */
export class DataDirectoryLockedError extends Error {
  constructor(directory: string, pid: number) {
    super(`The embedded database in ${directory} is in use by process ${pid}. Stop it first, or set DATA_DIR to another folder.`);
    this.name = 'DataDirectoryLockedError';
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite corrupts its files if two processes open one directory, so the directory carries a
 * lock file with the owner's pid; a stale lock (dead pid) is taken over.
 */
function lockDirectory(directory: string): string {
  mkdirSync(directory, { recursive: true });
  const lockFile = join(directory, 'tapline.lock');
  try {
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    if (pid && pid !== process.pid && processIsAlive(pid)) throw new DataDirectoryLockedError(directory, pid);
  } catch (error) {
    if (error instanceof DataDirectoryLockedError) throw error;
  }
  writeFileSync(lockFile, String(process.pid));
  return lockFile;
}

export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  private readonly db: PGlite;
  private readonly lockFile: string | undefined;

  /** `directory` undefined: in memory (tests). */
  private constructor(db: PGlite, lockFile: string | undefined) {
    this.db = db;
    this.lockFile = lockFile;
  }

  /**
   * `directory` undefined: in memory. `from`: a data directory's tarball (dump()) to start from
   * instead of an empty cluster: the tests' migrated template (testing/databases.ts).
   */
  static async open(directory?: string, from?: Blob): Promise<PgliteDatabase> {
    const lockFile = directory ? lockDirectory(directory) : undefined;
    const db = await PGlite.create(directory ? join(directory, 'pglite') : undefined, { parsers, ...(from ? { loadDataDir: from } : {}) });
    await db.exec(plannerSetStatements());
    return new PgliteDatabase(db, lockFile);
  }

  /** The data directory as an uncompressed tarball, for open(undefined, from). */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async query<Row>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    const result = await this.db.query<Row>(sql, params as unknown[]);
    return result.rows;
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (transaction) =>
      work({
        query: async <Row>(sql: string, params: readonly SqlParam[] = []) => (await transaction.query<Row>(sql, params as unknown[])).rows,
        exec: async (sql: string) => {
          await transaction.exec(sql);
        },
      }),
    );
  }

  async close(): Promise<void> {
    await this.db.close();
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}
