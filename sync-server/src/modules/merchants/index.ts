/** The merchants module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { findMerchant, findMerchantByHandle, insertApiKey, insertMerchant, listApiKeys, listMerchants, lockApiKey, newWebhookSecret, rotateApiKey, sealStoredWebhookSecrets, updateMerchant, updateWebhookSettings } from './store.ts';
export type { ApiKeyRow, MerchantRow } from './store.ts';
export { merchantRoutes } from './routes.ts';
