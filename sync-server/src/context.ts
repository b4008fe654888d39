import type { SecretBox } from './auth/secret-box.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { EventDispatcher } from './events/dispatcher.ts';
import type { SyncNotifier } from './events/sync-notifier.ts';

/**
 * What every module is built with: the core services only. A module that adds a service to the
 * context (fx rates, the payment scheduler, payout and biller adapters) declares the field in its
 * own `index.ts` (`declare module '../../context.ts'`), and `app.ts` builds it; this file imports
 * no module, so the layers read in one direction (see docs/architecture.md, Layers).
 */
export interface AppContext {
  db: Database;
  config: Config;
  /** The clock modules read, injectable so tests never wait for real time. */
  now: () => Date;
  /** Delivers the events outbox (webhooks, POS callbacks); tests call events.runOnce(). */
  events: EventDispatcher;
  /** Seals and opens the secrets the server must use again (webhook signing secrets). */
  secrets: SecretBox;
  /** Tells connected terminals that their hello changed (sync/socket.ts listens). */
  sync: SyncNotifier;
}
