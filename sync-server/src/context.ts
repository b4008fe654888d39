import type { SecretBox } from './auth/secret-box.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { EventDispatcher } from './events/dispatcher.ts';
import type { MoneyServices } from './modules/payments/runtime.ts';
import type { SyncNotifier } from './sync/notifier.ts';

/** What every module is built with. MoneyServices adds fx, payments (the scheduler) and providers. */
export interface AppContext extends MoneyServices {
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
