/** The pos module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { posRoutes } from './routes.ts';
export { posService, startPosSessionSweeper } from './service.ts';
export { findSession } from './store.ts';
