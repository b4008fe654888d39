import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { billRoutes } from '../bills/routes.ts';
import { fxRoutes } from '../fx/routes.ts';
import { identityRoutes } from '../identity/routes.ts';
import { linkRoutes } from '../links/routes.ts';
import { paymentRoutes } from './routes.ts';

/** Money moving out (issue #3): payments, FX, bills, payment links and Pay Identity. */
export async function moneyRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  for (const routes of [paymentRoutes, fxRoutes, billRoutes, linkRoutes, identityRoutes]) {
    await routes(app, context);
  }
}
