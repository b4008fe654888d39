import type { PushRejection, SyncDocument } from '@tapline/shared/sync-protocol';
import type { Database, Queryable } from '../../db/database.ts';
import { PG_ERROR, isDatabaseUnavailable, pgErrorCode } from '../../db/database.ts';
import { inSavepoint as inNamedSavepoint } from '../../db/savepoint.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { SettlementLimits } from './limits.ts';
import { documentId } from './settlement.ts';
import { reserveTerminalSeqs } from './store.ts';

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

/**
 * Settles one push of a terminal: every document gets its own verdict, always.
 *
 * The whole push is one database transaction: the terminal's row is locked and numbers are taken
 * for the push's documents (so one terminal's pushes settle in order, and its change numbers commit
 * in order), recorded ids answer their recorded verdicts, and the documents the server has not seen
 * settle in one batch. If the batch fails for a reason other than the database itself, the push is
 * settled again with a savepoint per document, so that one document the server cannot settle is
 * declined and the others settle: a push is never answered with a failure after any of it
 * committed, and one bad document never holds up a terminal's queue. A crash before the commit
 * leaves nothing; the terminal pushes the same documents again and they settle once.
 */
export async function settlePush<Row extends { id: string }, D extends SyncDocument>(
  db: Database,
  settler: CollectionSettler<Row, D>,
  terminal: PushTerminal,
  documents: readonly unknown[],
  now: () => Date,
  onIsolate: (error: unknown) => void,
): Promise<PushAnswer<D>> {
  const rejected: PushRejection[] = [];
  const ids: (string | undefined)[] = documents.map((doc, index) => {
    const id = documentId(doc);
    if (id === undefined) rejected.push({ index, code: 'invalid_document', error: 'A pushed document needs an id that is a UUID: it is its idempotency key' });
    return id;
  });
  // A document pushed twice in one push settles once and both rows answer its verdict.
  const unique = new Map<string, Record<string, unknown>>();
  documents.forEach((doc, index) => {
    const id = ids[index];
    if (id !== undefined && !unique.has(id)) unique.set(id, doc as Record<string, unknown>);
  });
  if (unique.size === 0) return { conflicts: [], rejected };

  const run = (isolate: boolean) =>
    db.transaction(async (tx) => {
      const at = now();
      const firstSeq = await reserveTerminalSeqs(tx, terminal.terminalId, unique.size);
      const answers = new Map<string, D>();
      const pushed = [...unique].map(([id, doc], index): PushedDocument => ({ id, doc, seq: firstSeq + index }));
      const byId = new Map(pushed.map((entry) => [entry.id, entry]));
      for (const row of await settler.find(tx, [...unique.keys()])) {
        const owner = settler.owner(row);
        const same = owner.merchantId === terminal.merchantId && owner.mode === terminal.mode;
        answers.set(row.id, same ? settler.document(row) : settler.idTaken(terminal, byId.get(row.id)!, at));
      }
      const fresh = pushed.filter((entry) => !answers.has(entry.id));
      for (const row of await settler.settle(tx, terminal, fresh, at, isolate)) answers.set(row.id, settler.document(row));
      return answers;
    });

  let answers: Map<string, D>;
  try {
    answers = await run(false);
  } catch (error) {
    if (isTransientDatabaseError(error)) throw error;
    // A document the batch could not take (or an id another terminal settled meanwhile): again,
    // one document at a time.
    onIsolate(error);
    answers = await run(true);
  }
  const conflicts: D[] = [];
  for (const id of ids) {
    const answer = id === undefined ? undefined : answers.get(id);
    if (answer) conflicts.push(answer);
  }
  return { conflicts, rejected };
}
