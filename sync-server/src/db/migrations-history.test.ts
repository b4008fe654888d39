// History must not mislead (docs/architecture.md, "The database"): a database function has
// one definition, its file in db/functions/, applied on every start. Migrations up to 024 defined
// functions before that folder existed; those bodies are superseded history. This check fails as
// soon as a migration defines a function again, or a function some migration defined has neither
// a file in db/functions/ nor a migration that drops it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listFunctionFiles, listMigrations } from './migrate.ts';

/** The migrations written before db/functions/ existed (migration 021 moved the functions there; 024 slipped through). */
const HISTORICAL_DEFINERS = [1, 3, 4, 5, 7, 8, 10, 14, 16, 18, 24];

const CREATE_FUNCTION = /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_][a-z0-9_.]*)/gi;
const DROP_FUNCTION = /\bDROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_.]*)/gi;

/** SQL without its comments, so a comment that mentions CREATE FUNCTION does not count. */
const code = (sql: string) => sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
const names = (sql: string, pattern: RegExp) => [...code(sql).matchAll(pattern)].map((match) => match[1]!.toLowerCase());

describe('migrations and database functions', () => {
  it('defines no function in a migration after the functions moved to db/functions/', () => {
    const definers = listMigrations().filter((migration) => names(migration.sql, CREATE_FUNCTION).length > 0).map((migration) => migration.version);
    assert.deepEqual(definers, HISTORICAL_DEFINERS, 'put a new or changed function in sync-server/src/db/functions/<name>.sql, not in a migration');
  });

  it('keeps one current definition of every function a migration ever defined: its file, or a migration that drops it', () => {
    const current = new Set(listFunctionFiles().flatMap((file) => names(file.sql, CREATE_FUNCTION)));
    const dropped = new Set(listMigrations().flatMap((migration) => names(migration.sql, DROP_FUNCTION)));
    const defined = new Set(listMigrations().flatMap((migration) => names(migration.sql, CREATE_FUNCTION)));
    const orphans = [...defined].filter((name) => !current.has(name) && !dropped.has(name)).sort();
    assert.deepEqual(orphans, [], 'a function defined only in migration history');
    assert.ok(current.has('pos_tap') && current.has('ledger_post_transfer'), 'the check reads the function files');
  });

  it('has one file-name order for the function files and no function defined twice among them', () => {
    const all = listFunctionFiles().flatMap((file) => names(file.sql, CREATE_FUNCTION).map((name) => `${name} (${file.name})`));
    const seen = new Map<string, string[]>();
    for (const entry of all) {
      const name = entry.split(' ')[0]!;
      seen.set(name, [...(seen.get(name) ?? []), entry]);
    }
    const twice = [...seen.values()].filter((entries) => entries.length > 1);
    assert.deepEqual(twice, [], 'each function is defined in one file');
  });
});
