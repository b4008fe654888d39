/** The merchants module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { findMerchant, findMerchantByHandle, insertApiKey, insertMerchant, insertTerminal, listApiKeys, listMerchants, listTerminals, lockApiKey, newWebhookSecret, revokeTerminal, rotateApiKey, sealStoredWebhookSecrets, updateMerchant, updateWebhookSettings } from './store.ts';
export type { ApiKeyRow, MerchantRow, TerminalRow } from './store.ts';
export { merchantRoutes } from './routes.ts';
