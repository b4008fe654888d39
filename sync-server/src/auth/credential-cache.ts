/**
 * The database rows behind valid merchant keys and terminal tokens, remembered for one second.
 *
 * Every POS sale is two requests by the same terminal or key; looking the credential up in
 * PostgreSQL for each was a measurable share of a sale's database time (bench:pos). A second is
 * short enough that nothing a merchant does notices it:
 * - a rotated key's grace period is checked on every use against the remembered expiry, so the
 *   old key stops exactly when it should;
 * - rotating a key, revoking a terminal or changing a merchant's limits calls
 *   credentialsChanged() after its commit, which empties the cache of this process at once;
 *   another server instance on the same database sees the change within TTL_MS.
 * Unknown credentials are never remembered (a guessing client cannot fill the cache).
 */
const TTL_MS = 1000;
const ENTRIES_MAX = 10_000;

interface Entry {
  row: unknown;
  until: number;
}

/** One map per database: tests run many apps on different databases in one process. */
let caches = new WeakMap<object, Map<string, Entry>>();
let generation = 0;

/** Forgets every remembered credential: call once a change to keys, terminals or merchant limits has committed. */
export function credentialsChanged(): void {
  caches = new WeakMap();
  generation++;
}

/** `lookup()`'s row for `key` on `db`, from the last second's answers when there is one; `now`: the app's clock (context.now()). */
export async function rememberedLookup<Row>(db: object, key: string, now: Date, lookup: () => Promise<Row | undefined>): Promise<Row | undefined> {
  let entries = caches.get(db);
  if (!entries) {
    entries = new Map();
    caches.set(db, entries);
  }
  const at = now.getTime();
  const hit = entries.get(key);
  if (hit && hit.until > at) return hit.row as Row;
  const startedIn = generation;
  const row = await lookup();
  // A change that committed while the lookup ran may be missing from its answer: do not keep it.
  if (row !== undefined && startedIn === generation) {
    if (entries.size >= ENTRIES_MAX) entries.clear();
    entries.set(key, { row, until: at + TTL_MS });
  }
  return row;
}
