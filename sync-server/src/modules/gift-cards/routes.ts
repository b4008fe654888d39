import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { fxServiceRateSource } from '../fx/index.ts';
import { type GiftCardJobs, scheduledGiftCardJobs } from './jobs.ts';
import { adminGiftCardRoutes } from './routes-admin.ts';
import { issuerSurfaceRoutes } from './routes-issuer.ts';
import { programRoutes } from './routes-programs.ts';
import { publicGiftCardRoutes } from './routes-public.ts';
import { tillGiftCardRoutes } from './routes-till.ts';
import { giftCardService } from './service.ts';

/** Gift cards on every surface: merchant, wallet and agent issue/redeem, public verify, programs, rewards, admin. */
export async function giftCardRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const rates = fxServiceRateSource(context.fx);
  const service = giftCardService(context, rates);
  for (const surface of ['merchant', 'wallet', 'agent'] as const) await issuerSurfaceRoutes(app, context, service, rates, surface);
  await publicGiftCardRoutes(app, context, service);
  await programRoutes(app, context, service, rates);
  await adminGiftCardRoutes(app, context, service, rates);
  await tillGiftCardRoutes(app, context);
}

/** The gift-card worker for a context (tests: `giftCardJobs(server().context).runOnce()`). */
export function giftCardJobs(context: AppContext, onError: (error: unknown) => void = () => undefined): GiftCardJobs {
  return scheduledGiftCardJobs(context, giftCardService(context), context.config.giftCardJobIntervalMs, onError);
}

/** Starts the worker when the app is ready and stops it (waiting for a run in flight) on close. */
export function startGiftCardJobs(app: TypedApp, context: AppContext): void {
  const jobs = giftCardJobs(context, (error) => app.log.error({ err: error }, 'gift card jobs failed'));
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());
}
