/** The agent module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { agentRoutes } from './routes.ts';
