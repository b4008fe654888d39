/** The links module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { linkRoutes } from './routes.ts';
