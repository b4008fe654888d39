/** The store module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export type { MailTransport } from './mail.ts';
export { startStoreJobs, storeRoutes } from './routes.ts';
