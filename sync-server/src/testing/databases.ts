import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open.ts';

/**
 * The databases every suite runs on: embedded PGlite always, and a real PostgreSQL when
 * TEST_DATABASE_URL is set or a local server answers. Each suite gets a fresh database that
 * is dropped afterwards.
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

/** Creates an empty database on the PostgreSQL server and returns its URL and a drop function. */
export async function createPostgresDatabase(baseUrl = postgresBaseUrl()): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tapline_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
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
        const db = await openDatabase({});
        return { db, dispose: () => db.close() };
      },
    },
  ];
  const baseUrl = postgresBaseUrl();
  if (process.env.TEST_POSTGRES !== '0' && (await postgresAnswers(baseUrl))) {
    const target: DatabaseTarget = {
      name: 'postgres',
      async open() {
        const created = await createPostgresDatabase(baseUrl);
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
