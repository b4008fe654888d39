/** The identity module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { identityRoutes } from './routes.ts';
