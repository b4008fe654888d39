import type { Language } from '@tapline/shared/i18n';
import type { AppContext } from '../../context.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import type { Mode } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { validateWebhookUrl } from '../../http/webhook-url.ts';
import { type TerminalRow, insertTerminal, issuePairingCode, listTerminals, pairingAnswer, revokeTerminal } from '../terminals/index.ts';
import { balanceResponse, requireWallet } from '../wallets/index.ts';
import { newWebhookSecret, rotateApiKey, updateWebhookSettings } from './store.ts';

/** The merchant and the mode a credential acts for: every row read or changed here is theirs. */
interface MerchantScope {
  merchantId: string;
  mode: Mode;
}

/**
 * The merchant's own account: its keys, its webhook settings, its balance and its kiosk terminals.
 * The terminals table is `terminals`' (its only writer) and the balance `wallets'`: both through
 * their index.ts. A change to a credential (a rotated key, a revoked terminal) empties the
 * credential cache at once, so no remembered lookup keeps an old credential working.
 */
export function merchantService(context: AppContext) {
  const { db, secrets, now, sync } = context;

  /** A new key of the calling key's mode; the calling key stops working after graceHours (at once for 0). */
  async function rotateKey(key: MerchantScope & { keyId: string }, graceHours: number): Promise<{ key: string; previousKeyExpiresAt: Date }> {
    const rotated = await db.transaction((tx) => rotateApiKey(tx, key.keyId, key.merchantId, key.mode, graceHours, now()));
    credentialsChanged();
    return rotated;
  }

  /**
   * Sets the webhook URL (undefined keeps it, null removes it; a live URL must not reach a private
   * address) and, when asked, a new signing secret: answered this once in plaintext, stored sealed.
   */
  async function updateSettings(merchant: MerchantScope, changes: { webhookUrl?: string | null | undefined; rotateWebhookSecret?: boolean | undefined }): Promise<{ webhookUrl: string | null; webhookSecret?: string }> {
    const webhookUrl = changes.webhookUrl === undefined || changes.webhookUrl === null ? changes.webhookUrl : validateWebhookUrl(changes.webhookUrl, merchant.mode);
    const newSecret = changes.rotateWebhookSecret === true ? newWebhookSecret() : null;
    const row = await updateWebhookSettings(db, merchant.merchantId, { webhookUrl, sealedNewSecret: newSecret === null ? null : secrets.seal(newSecret) });
    if (!row) throw notFound('merchant_not_found', 'Merchant not found');
    return { webhookUrl: row.webhook_url, ...(newSecret === null ? {} : { webhookSecret: newSecret }) };
  }

  /** The balances of the merchant's wallet (at its handle) in one mode. */
  async function balance(handle: string, mode: Mode) {
    const wallet = await requireWallet(db, handle, mode);
    return balanceResponse(db, wallet, mode);
  }

  /**
   * A new terminal with its token and its first pairing code, in one transaction: a terminal is
   * never left without a way to pair. The code's QR image is drawn after the commit, outside it.
   */
  async function addTerminal(merchant: MerchantScope, name: string, language: Language | undefined) {
    const created = await db.transaction(async (tx) => {
      const terminal = await insertTerminal(tx, merchant.merchantId, merchant.mode, name.trim(), language);
      return { ...terminal, pairing: await issuePairingCode(tx, terminal.row.id, now()) };
    });
    return { row: created.row, token: created.token, pairing: await pairingAnswer(created.pairing) };
  }

  /** A page of the merchant's terminals and which of them hold a live sync connection now (on any server instance). */
  async function terminalPage(merchant: MerchantScope, limit: number, offset: number): Promise<{ rows: TerminalRow[]; total: number; connected: ReadonlySet<string> }> {
    const page = await listTerminals(db, merchant.merchantId, merchant.mode, limit, offset, now());
    const connected = await sync.connectedTerminals(page.rows.map((row) => row.id));
    return { ...page, connected };
  }

  /** Revokes one of the merchant's terminals: its token stops working at once; 404 terminal_not_found. */
  async function revokeMerchantTerminal(merchant: MerchantScope, id: string): Promise<TerminalRow> {
    const row = await revokeTerminal(db, id, merchant.merchantId, merchant.mode, now());
    credentialsChanged();
    if (!row) throw notFound('terminal_not_found', `No terminal ${id}`);
    // Its pairing code no longer pairs (pairing refuses a revoked terminal).
    return { ...row, pairing_expires_at: null };
  }

  return { rotateKey, updateSettings, balance, addTerminal, terminalPage, revokeMerchantTerminal };
}

export type MerchantService = ReturnType<typeof merchantService>;
