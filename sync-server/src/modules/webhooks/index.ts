/** The webhooks module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { webhookRoutes } from './routes.ts';
