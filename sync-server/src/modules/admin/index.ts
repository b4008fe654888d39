/** The admin module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { adminRoutes } from './routes.ts';
