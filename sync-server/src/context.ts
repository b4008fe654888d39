import type { Config } from './config.ts';
import type { Database } from './db/database.ts';

/** What every module is built with. */
export interface AppContext {
  db: Database;
  config: Config;
  /** The clock modules read, injectable so tests never wait for real time. */
  now: () => Date;
}
