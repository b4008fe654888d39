/**
 * How our connections ask PostgreSQL (and PGlite) to plan. `random_page_cost` 1.1 instead of the
 * default 4 says what is true of a ledger's hot tables: their pages are in memory or on SSD, so a
 * random page costs about what a sequential one does.
 *
 * Why it matters: a statement is planned once per connection and its generic plan kept (prepared
 * statements, and every statement inside a PL/pgSQL function). On a new database those plans are
 * made while the tables are small, and with the default cost a lookup of many keys
 * (`id = ANY ($1)`, an UPDATE ... FROM unnest(...)) was planned as a sequential scan and kept while
 * the table grew: offline_post_taps' check of a push's transfer ids read all of ledger_transfers,
 * 1.9 ms a push at 25,000 transfers. At 1.1 the same statements probe their keys, on a new
 * database as on an old one (bench:sync settlement 2,534 -> 2,696 payments/s, PostgreSQL CPU per
 * payment 0.49 -> 0.44 ms).
 */
export const PLANNER_SETTINGS: Readonly<Record<string, string>> = { random_page_cost: '1.1' };

/** PLANNER_SETTINGS as a connection's startup options (`-c name=value ...`), for a pool's connections (PostgreSQL). */
export const plannerStartupOptions = (): string =>
  Object.entries(PLANNER_SETTINGS).map(([name, value]) => `-c ${name}=${value}`).join(' ');

/** PLANNER_SETTINGS as SET statements, for a database of one session (PGlite). */
export const plannerSetStatements = (): string =>
  Object.entries(PLANNER_SETTINGS).map(([name, value]) => `SET ${name} = ${value};`).join('\n');
