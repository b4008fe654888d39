import type { Database } from './database.ts';
import { migrate } from './migrate.ts';
import { PgliteDatabase } from './pglite.ts';
import { PostgresDatabase } from './postgres.ts';

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; absent: the embedded database in `dataDirectory`. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; absent with no databaseUrl: in memory. */
  dataDirectory?: string | undefined;
  /** The embedded database only: a data directory's tarball to start from (the tests' migrated template). */
  embeddedFrom?: Blob | undefined;
  poolSize?: number;
}

/** Opens the configured database and brings its schema up to date. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const db: Database = options.databaseUrl
    ? new PostgresDatabase({ connectionString: options.databaseUrl, poolSize: options.poolSize ?? 10 })
    : await PgliteDatabase.open(options.dataDirectory, options.embeddedFrom);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
