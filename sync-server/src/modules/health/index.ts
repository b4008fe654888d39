/** The health module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { readinessRoutes } from './routes-ready.ts';
export { healthRoutes } from './routes.ts';
