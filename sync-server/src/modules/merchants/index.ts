/** The merchants module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { findMerchant, insertApiKey, insertMerchant, insertTerminal, listMerchants, listTerminals, newWebhookSecret, revokeTerminal, rotateApiKey, sealStoredWebhookSecrets, updateMerchant, updateWebhookSettings } from './store.ts';
export type { MerchantRow, TerminalRow } from './store.ts';
export { merchantRoutes } from './routes.ts';
