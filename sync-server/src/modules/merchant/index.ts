/** The merchant module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { merchantRoutes } from './routes.ts';
