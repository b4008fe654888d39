/** The cash-pickup module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { cashPickupRoutes } from './routes.ts';
export { AGENT_NETWORK, agentNetworkProvider } from './service.ts';
