/** The checkout module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { checkoutRoutes } from './routes.ts';
export { checkoutService } from './service.ts';
