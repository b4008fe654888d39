import type { PushRejection, SyncDocument } from '@tapline/shared/sync-protocol';
import type { Database } from '../../db/database.ts';
import { type CollectionSettler, type PushAnswer, type PushTerminal, type PushedDocument, isTransientDatabaseError } from '../push/index.ts';
import { documentId } from './settlement.ts';
import { reserveTerminalSeqs } from '../terminals/index.ts';

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
