import type { OfflineLimits, PushRejection, SyncDocument } from '@tapline/shared/sync-protocol';
import type { Queryable } from '../../db/database.ts';
import { PG_ERROR, isDatabaseUnavailable, pgErrorCode } from '../../db/database.ts';
import { inSavepoint as inNamedSavepoint } from '../../db/savepoint.ts';
import type { Mode } from '../../auth/secrets.ts';

// What one replicated collection's settler is and gets (the offline module's payments, sales and
// gift-card sales, the till staff's shift events): the contract offline/push.ts's settlePush runs
// them by. It lives below both so that a module with a synced collection does not import offline.

/** What a push is judged by: the hello's limits but the largest offline tap (each tap meets its own tag's no-PIN limit). */
export type SettlementLimits = Omit<OfflineLimits, 'noPinPerTapMaxMinor' | 'noPinPerDayMaxMinor'>;

/** The terminal a push comes from, as the push settles for it. */
export interface PushTerminal {
  terminalId: string;
  merchantId: string;
  mode: Mode;
  /** The merchant's wallet in the terminal's mode: where offline payments land, what gift cards are issued from. */
  wallet: { id: string; handle: string; currency: string; mode: Mode };
  createdAt: Date;
  limits: SettlementLimits;
}

/** A pushed document with a usable id, and the change number it settles under. */
export interface PushedDocument {
  id: string;
  doc: Record<string, unknown>;
  seq: number;
}

/**
 * A push's documents read as `read` makes them, in the order the terminal made them (capture
 * time, then push order), each with a change number: the push's numbers in ascending order, so
 * that a terminal's changes number in the order they happened.
 */
export function inCapturedOrder<C extends { capturedAt: Date }>(documents: readonly PushedDocument[], read: (entry: PushedDocument) => C): { candidate: C; seq: number }[] {
  const seqs = documents.map((entry) => entry.seq).sort((a, b) => a - b);
  return documents
    .map((entry, index) => ({ candidate: read(entry), index }))
    .sort((a, b) => a.candidate.capturedAt.getTime() - b.candidate.capturedAt.getTime() || a.index - b.index)
    .map(({ candidate }, position) => ({ candidate, seq: seqs[position]! }));
}

/** What one replicated collection does with the documents of a push. */
export interface CollectionSettler<Row extends { id: string }, D extends SyncDocument> {
  /** The recorded rows of these ids (any terminal's). */
  find(tx: Queryable, ids: readonly string[]): Promise<Row[]>;
  owner(row: Row): { merchantId: string; mode: Mode };
  /**
   * Settles documents the server has not seen, in `tx`, and records each (accepted or declined).
   * `isolate`: one savepoint per document, so that a document that fails unexpectedly is declined
   * `settlement_failed` instead of undoing the others (the slow path, after the batch failed).
   */
  settle(tx: Queryable, terminal: PushTerminal, documents: readonly PushedDocument[], now: Date, isolate: boolean): Promise<Row[]>;
  document(row: Row): D;
  /** The answer to a document whose id another merchant, or the other mode, already used: declined, not recorded. */
  idTaken(terminal: PushTerminal, pushed: PushedDocument, now: Date): D;
}

export interface PushAnswer<D extends SyncDocument> {
  conflicts: D[];
  rejected: PushRejection[];
}

/** Errors after which the same work may succeed if run again: the database was busy or away. */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === PG_ERROR.deadlockDetected || code === PG_ERROR.serializationFailure || code === '57014' || isDatabaseUnavailable(error);
}

/**
 * Runs `work` in a savepoint of `tx`. A failure rolls back to the savepoint, leaving the
 * transaction usable, and is answered as `{ failed }`; a transient database error is thrown (the
 * whole transaction must go).
 */
export function inSavepoint<T>(tx: Queryable, work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return inNamedSavepoint(tx, 'push_document', work, { rethrow: isTransientDatabaseError });
}

