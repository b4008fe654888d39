/** The wallet module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { walletRoutes } from './routes.ts';
