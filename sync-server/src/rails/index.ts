/** The rails' public entry: app.ts and the modules import only this file. */
import type { Rails } from './registry.ts';
export { RAIL_MODULES } from './modules.ts';
export { callbackTokens, createRails } from './registry.ts';
export type { Rails } from './registry.ts';
export { railCallbackRoutes } from './routes.ts';
export { DEFAULT_ROUTES, describeRoutes, parseRoutes, providersFor } from './routing.ts';
export type * from './types.ts';

declare module '../context.ts' {
  interface AppContext {
    /** The configured payment-provider adapters and the route table (none configured: live rails answer 422). */
    rails: Rails;
  }
}
