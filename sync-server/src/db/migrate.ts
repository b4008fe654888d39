import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';

const migrationsDirectory = fileURLToPath(new URL('./migrations/', import.meta.url));
const functionsDirectory = fileURLToPath(new URL('./functions/', import.meta.url));
const MIGRATION_FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;
/** Arbitrary constant: serialises migrations of several instances starting on one PostgreSQL. */
const MIGRATION_LOCK_KEY = 727_274_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  return readdirSync(migrationsDirectory)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((entry): entry is { file: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ file, match }) => ({ version: Number(match[1]), name: match[2] ?? file, sql: readFileSync(migrationsDirectory + file, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * The database functions, one file each in db/functions/ (CREATE OR REPLACE FUNCTION ...), in
 * file-name order. They are the one definition of every function: applied after the migrations on
 * every start, so a change to a function is a diff of one file.
 */
export function listFunctionFiles(): { name: string; sql: string }[] {
  return readdirSync(functionsDirectory)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file, sql: readFileSync(functionsDirectory + file, 'utf8') }));
}

/**
 * Applies every numbered migration not yet recorded in schema_migrations, each in its own
 * transaction, then (re)defines every function of db/functions/ in one transaction. Migrations are
 * immutable history; a function they defined is superseded by its file (migration 021 drops the
 * ones whose signature changed).
 *
 * Several instances may start at once on one PostgreSQL: each of these transactions first takes a
 * transaction-scoped advisory lock, and a migration is checked again under it, so each runs once.
 * (A session lock would not do: through a pool, its unlock may run on another connection and
 * leave the lock held by an idle one.)
 */
export async function migrate(db: Database): Promise<number[]> {
  await db.transaction(async (tx) => {
    await serialise(db, tx);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const newlyApplied = await applyMigrations(db);
  await db.transaction(async (tx) => {
    await serialise(db, tx);
    // The files reference each other; their bodies are checked when they first run, not here.
    await tx.exec('SET LOCAL check_function_bodies = off');
    for (const file of listFunctionFiles()) await tx.exec(file.sql);
  });
  return newlyApplied;
}

/** Waits for any other instance's migration transaction; released at this one's end. PGlite is one process. */
async function serialise(db: Database, tx: Queryable): Promise<void> {
  if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
}

/** Applies every numbered migration not yet recorded in schema_migrations, each in its own transaction. */
async function applyMigrations(db: Database): Promise<number[]> {
  const applied = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => row.version));
  const newlyApplied: number[] = [];
  for (const migration of listMigrations()) {
    if (applied.has(migration.version)) continue;
    const ran = await db.transaction(async (tx) => {
      await serialise(db, tx);
      // Another instance may have applied it while this one waited for the lock.
      const [done] = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done) return false;
      // Multi-statement SQL cannot take parameters; run it whole, then record it.
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      return true;
    });
    if (ran) newlyApplied.push(migration.version);
  }
  return newlyApplied;
}
