import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { type Database, pgErrorCode } from '../db/database.ts';
import { listFunctionFiles, listMigrations, migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { PgliteDatabase } from '../db/pglite.ts';

/**
 * The databases every suite runs on: embedded PGlite always, and a real PostgreSQL when
 * TEST_DATABASE_URL is set or a local server answers. Each suite gets a fresh database that
 * is dropped afterwards.
 *
 * Fresh, not freshly migrated: a suite's database is a copy of a migrated template (see
 * migratedTemplates below), which open() then brings up to date as the server does on every start.
 * Migrating each suite's database from nothing took 3 to 8 s per suite on PGlite (its initdb) and
 * about 3 s on PostgreSQL, for some 270 suites per database: most of a test run's time.
 */
export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  /** Opens a fresh, migrated database; `dispose` closes it and drops it. */
  open(): Promise<{ db: Database; dispose(): Promise<void> }>;
  /** The connection string of the last database opened (postgres only), for child processes. */
  connectionString?: string;
}

const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function postgresBaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
}

/**
 * Creates a database on the PostgreSQL server, empty or a copy of `template`, and returns its URL
 * and a drop function.
 */
export async function createPostgresDatabase(baseUrl = postgresBaseUrl(), template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tapline_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await whileInUse(admin, template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabaseName(baseUrl, name),
    async drop() {
      const dropper = new pg.Client({ connectionString: baseUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/*
 * Migrated templates. The schema's fingerprint (every migration and function file, and PGlite's
 * version) names them, so a changed migration makes a new one and a stale one is never used; the
 * migrations themselves are still run from nothing by the server processes of the e2e tests and by
 * db/migrate.test.ts.
 * - PostgreSQL: a database `tapline_template_<fingerprint>`, made once under an advisory lock by
 *   whichever test process needs it first (migrated under another name, then renamed, so nobody
 *   sees it half made), never connected to afterwards; a suite's database is CREATE DATABASE ...
 *   TEMPLATE it.
 * - PGlite: the migrated data directory's tarball in the system's temporary folder (written under
 *   another name, then renamed); a suite's database starts from it (loadDataDir), skipping initdb.
 */
const TEMPLATE_LOCK_KEY = 727_274_002;
/** "database is being accessed by other users": a connection just closed has not ended on the server yet. */
const OBJECT_IN_USE = '55006';

let fingerprint: string | undefined;
function schemaFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash('sha256');
  // Its package.json is not exported: found from its entry point (dist/index.*).
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pgliteVersion = (JSON.parse(readFileSync(join(dirname(dirname(pgliteEntry)), 'package.json'), 'utf8')) as { version: string }).version;
  hash.update(`pglite ${pgliteVersion}\n`);
  for (const migration of listMigrations()) hash.update(`migration ${migration.version} ${migration.name}\n${migration.sql}\n`);
  for (const file of listFunctionFiles()) hash.update(`function ${file.name}\n${file.sql}\n`);
  fingerprint = hash.digest('hex').slice(0, 16);
  return fingerprint;
}

/** Runs `statement` again while the database it names is still held by a closing connection (up to 10 s). */
async function whileInUse(client: pg.Client, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(statement);
      return;
    } catch (error) {
      if (pgErrorCode(error) !== OBJECT_IN_USE || attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

let postgresTemplate: Promise<string> | undefined;
/** The migrated template database's name on this server, made if no process has made it yet. */
function postgresTemplateName(baseUrl: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `tapline_template_${schemaFingerprint()}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    const exists = async () => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    try {
      if (await exists()) return name;
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
      try {
        if (await exists()) return name;
        const building = `${name}_b${process.pid}`;
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        await admin.query(`CREATE DATABASE ${building}`);
        const db = await openDatabase({ databaseUrl: withDatabaseName(baseUrl, building), poolSize: 2 });
        await db.close();
        await whileInUse(admin, `ALTER DATABASE ${building} RENAME TO ${name}`);
        // Nothing connects to it from now on: a connection would keep CREATE DATABASE ... TEMPLATE from copying it.
        await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
        return name;
      } finally {
        await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
      }
    } finally {
      await admin.end();
    }
  })();
  // A failure is not kept: the next suite tries again.
  postgresTemplate.catch(() => (postgresTemplate = undefined));
  return postgresTemplate;
}

let pgliteTemplate: Promise<Blob> | undefined;
/** The migrated PGlite data directory, read from the temporary folder or made (and written there). */
function pgliteTemplateDump(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const directory = join(tmpdir(), 'tapline-test-templates');
    const file = join(directory, `pglite-${schemaFingerprint()}.tar`);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      // Not made yet on this machine.
    }
    const db = await PgliteDatabase.open();
    try {
      await migrate(db);
      const dump = await db.dump();
      await mkdir(directory, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
      await rename(partial, file);
      return dump;
    } finally {
      await db.close();
    }
  })();
  pgliteTemplate.catch(() => (pgliteTemplate = undefined));
  return pgliteTemplate;
}

let cachedTargets: Promise<DatabaseTarget[]> | undefined;

export function databaseTargets(): Promise<DatabaseTarget[]> {
  cachedTargets ??= resolveTargets();
  return cachedTargets;
}

async function resolveTargets(): Promise<DatabaseTarget[]> {
  const targets: DatabaseTarget[] = [
    {
      name: 'pglite',
      async open() {
        const db = await openDatabase({ embeddedFrom: await pgliteTemplateDump() });
        return { db, dispose: () => db.close() };
      },
    },
  ];
  const baseUrl = postgresBaseUrl();
  if (process.env.TEST_POSTGRES !== '0' && (await postgresAnswers(baseUrl))) {
    const target: DatabaseTarget = {
      name: 'postgres',
      async open() {
        const created = await createPostgresDatabase(baseUrl, await postgresTemplateName(baseUrl));
        target.connectionString = created.url;
        const db = await openDatabase({ databaseUrl: created.url, poolSize: 20 });
        return {
          db,
          async dispose() {
            await db.close();
            await created.drop();
          },
        };
      },
    };
    targets.push(target);
  } else if (process.env.REQUIRE_POSTGRES === '1') {
    throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL does not answer at ${baseUrl}`);
  } else {
    console.warn(`# PostgreSQL not reachable at ${baseUrl}: suites run on PGlite only (set TEST_DATABASE_URL to change)`);
  }
  return targets;
}

/** Inside a describe(): a fresh database for the suite, disposed after it. Call the getter in tests. */
export function useDatabase(target: DatabaseTarget): () => Database {
  let opened: { db: Database; dispose(): Promise<void> } | undefined;
  before(async () => {
    opened = await target.open();
  });
  after(async () => {
    await opened?.dispose();
  });
  return () => {
    if (!opened) throw new Error('database not open yet: call the getter inside a test');
    return opened.db;
  };
}
