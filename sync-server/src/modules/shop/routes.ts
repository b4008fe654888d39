import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { giftCardService } from '../gift-cards/index.ts';
import { fxServiceRateSource } from '../fx/index.ts';
import { MailOutbox, type MailTransport, mailTransportFromConfig } from './mail.ts';
import { adminStoreRoutes } from './routes-admin.ts';
import { publicStoreRoutes } from './routes-public.ts';

/** One mail outbox per app context, shared by the routes' app and its worker (tests: storeMailOutbox(context).runOnce()). */
const outboxes = new WeakMap<AppContext, MailOutbox>();

export function storeMailOutbox(context: AppContext): MailOutbox {
  const outbox = outboxes.get(context);
  if (!outbox) throw new Error('the store routes are not registered on this context');
  return outbox;
}

/**
 * The store: public catalogue, checkout, orders, flash sales, reviews, stock alerts, referral
 * validation and the wallet's notices; the admin surface; and the mail outbox worker.
 * `mailTransport` replaces the configured one (SMTP_URL, or disabled) in tests.
 */
export async function storeRoutes(app: TypedApp, context: AppContext, mailTransport?: MailTransport): Promise<void> {
  const rates = fxServiceRateSource(context.fx);
  const giftCards = giftCardService(context, rates);
  const transport = mailTransport ?? mailTransportFromConfig(context.config, (message) => app.log.warn(message));
  outboxes.set(
    context,
    new MailOutbox(
      context.db,
      transport,
      context.now,
      context.config.storeMailIntervalMs,
      (error) => app.log.error({ err: error }, 'store mail outbox'),
      (message) => app.log.warn(message),
    ),
  );
  await publicStoreRoutes(app, context, giftCards, rates);
  await adminStoreRoutes(app, context, giftCards, rates);
}

/** Starts the mail worker when the app is ready and stops it (waiting for a run in flight) on close. */
export function startStoreJobs(app: TypedApp, context: AppContext): void {
  const outbox = storeMailOutbox(context);
  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => outbox.stop());
}
