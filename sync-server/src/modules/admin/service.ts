import { toMinor } from '@tapline/shared/money';
import { WALLET_TIER_NAMES, type WalletTier, isWalletTier } from '@tapline/shared/wallet-tiers';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, pgErrorCode } from '../../db/database.ts';
import { type Mode, hashPin } from '../../auth/secrets.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { accountBalance, transfer } from '../../ledger/ledger.ts';
import { insertApiKey, insertMerchant, newWebhookSecret } from '../merchants/index.ts';
import { type WalletRow, handleIsTaken, hasTier, insertAgent, insertWallet, requireWallet, updateWalletTier } from '../wallets/index.ts';
import { insertWalletNotification } from '../wallets/index.ts';
import { assertEmailFree, inviteUser } from '../merchant-users/index.ts';

/** A new wallet owner's identity, already normalised by the route (canonical handle, supported country and currency). */
interface WalletIdentity {
  handle: string;
  mode: Mode;
  country: string;
  currency: string;
}

/**
 * Provisioning's rules (CONTRACT.md): merchants with their keys and wallets, customer wallets,
 * agents, sandbox funds and verification tiers. Every money movement (a new merchant's sandbox
 * float, a credit from the funding account) is one ledger transfer in the same transaction as
 * the rows it goes with. The routes parse, authorize and shape the answers.
 */
export function adminService(context: AppContext) {
  const { db, config, secrets } = context;

  async function assertHandleFree(handle: string, mode: Mode): Promise<void> {
    if ((await handleIsTaken(db, handle))[mode]) throw conflict('handle_taken', `The handle ${displayHandle(handle)} is already taken in ${mode} mode`);
  }

  /** A handle taken between the check and the insert (a concurrent request) is 409 handle_taken too. */
  function rethrowHandleTaken(error: unknown, handle: string): never {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw conflict('handle_taken', `The handle ${displayHandle(handle)} is already taken`);
    throw error;
  }

  /**
   * A merchant with a test and a live key and a wallet at its handle in each mode; the test wallet
   * is given the sandbox float (SANDBOX_FLOAT, from the funding account) in the same transaction.
   * With an owner's email, the dashboard owner's one-time set-up link (modules/merchant-users).
   */
  async function createMerchant(input: { name: string; handle: string; country: string; currency: string; webhookUrl: string | null; ownerEmail: string | undefined }) {
    const { handle, country, currency } = input;
    const taken = await handleIsTaken(db, handle);
    if (taken.test || taken.live) throw conflict('handle_taken', `The handle ${displayHandle(handle)} is already taken`);
    if (input.ownerEmail !== undefined) await assertEmailFree(db, input.ownerEmail);
    const webhookSecret = newWebhookSecret();
    const created = await db
      .transaction(async (tx) => {
        const merchant = await insertMerchant(tx, { name: input.name, handle, country, currency, webhookUrl: input.webhookUrl, sealedWebhookSecret: secrets.seal(webhookSecret) });
        const testKey = await insertApiKey(tx, merchant.id, 'test');
        const liveKey = await insertApiKey(tx, merchant.id, 'live');
        const modes: Mode[] = ['test', 'live'];
        for (const mode of modes) {
          const wallet = await insertWallet(tx, { handle, mode, ownerType: 'merchant', merchantId: merchant.id, displayName: merchant.name, country, currency, pinHash: null });
          if (mode === 'test' && config.sandboxFloat > 0) {
            const amount = toMinor(config.sandboxFloat, currency);
            await transfer(tx, {
              id: `sandbox_float:${merchant.id}`,
              mode: 'test',
              kind: 'sandbox_float',
              legs: [
                { account: systemAccount('funding', currency), amount: -amount },
                { account: walletAccount(wallet.id, currency), amount },
              ],
            });
          }
        }
        return { merchant, testKey: testKey.key, liveKey: liveKey.key };
      })
      .catch((error: unknown) => rethrowHandleTaken(error, handle));
    // POST /api/admin/merchants/{id}/owner issues one later too.
    const owner = input.ownerEmail === undefined ? undefined : await inviteUser(context, created.merchant.id, input.ownerEmail, 'owner', 'setup');
    return { ...created, webhookSecret, owner };
  }

  /** A customer's wallet with her PIN (hashed here) and payout destinations. */
  async function createWallet(identity: WalletIdentity, input: { pin: string; displayName: string | null; preferredRail: string | null; destinations: unknown[] }): Promise<WalletRow> {
    const { handle, mode, country, currency } = identity;
    await assertHandleFree(handle, mode);
    const pinHash = await hashPin(input.pin);
    return db
      .transaction((tx) => insertWallet(tx, { handle, mode, ownerType: 'person', displayName: input.displayName, country, currency, pinHash, preferredRail: input.preferredRail, destinations: input.destinations }))
      .catch((error: unknown) => rethrowHandleTaken(error, handle));
  }

  /**
   * Credits a wallet from the platform funding account (sandbox faucet, agent cash-in): one
   * transfer of id `transferId` (the Idempotency-Key's when given, so a retry posts nothing twice).
   * Answers the wallet's balance in that currency after it.
   */
  async function creditWallet(input: { handle: string; mode: Mode; currency: string; amount: number; transferId: string }): Promise<number> {
    const { handle, mode, currency, amount } = input;
    const wallet = await requireWallet(db, handle, mode);
    return db.transaction(async (tx) => {
      await transfer(tx, {
        id: input.transferId,
        mode,
        kind: 'wallet_credit',
        legs: [
          { account: systemAccount('funding', currency), amount: -amount },
          { account: walletAccount(wallet.id, currency), amount },
        ],
        metadata: { handle },
      });
      return accountBalance(tx, walletAccount(wallet.id, currency), mode);
    });
  }

  /** An agent and its wallet at its handle, in one transaction; the agent's secret is answered once. */
  async function createAgent(identity: WalletIdentity, name: string) {
    const { handle, mode, country, currency } = identity;
    await assertHandleFree(handle, mode);
    return db
      .transaction(async (tx) => {
        const wallet = await insertWallet(tx, { handle, mode, ownerType: 'agent', displayName: name, country, currency, pinHash: null });
        return insertAgent(tx, { name, walletId: wallet.id, mode });
      })
      .catch((error: unknown) => rethrowHandleTaken(error, handle));
  }

  /** A customer wallet of this handle and mode, or 404 wallet_not_found / 400 wallet_not_tiered. */
  async function tieredWallet(handle: string, mode: Mode): Promise<WalletRow> {
    const wallet = await requireWallet(db, handle, mode);
    if (!hasTier(wallet)) throw badRequest('wallet_not_tiered', `${displayHandle(wallet.handle)} is a ${wallet.owner_type}'s wallet: only customers' wallets have a verification tier`);
    return wallet;
  }

  /**
   * Sets a customer wallet's verification tier and tells the holder in her notifications, in one
   * transaction. Answers the wallet as it is now and the tier it had.
   */
  async function setWalletTier(handle: string, mode: Mode, tier: WalletTier, reason: string | undefined) {
    const wallet = await tieredWallet(handle, mode);
    const now = context.now();
    const previousTier = await db.transaction(async (tx) => {
      const changed = await updateWalletTier(tx, wallet.id, tier, now);
      if (!changed) throw notFound('wallet_not_found', `No wallet ${displayHandle(wallet.handle)}`);
      const from = isWalletTier(changed.previous) ? changed.previous : config.walletTierDefault;
      await insertWalletNotification(tx, {
        walletId: wallet.id,
        mode: wallet.mode,
        kind: 'wallet.tier.changed',
        title: tier > from ? 'Your wallet\'s limits were raised' : tier < from ? 'Your wallet\'s limits were lowered' : 'Your wallet\'s tier was confirmed',
        body: `Your wallet is now ${WALLET_TIER_NAMES[tier]} (it was tier ${from}).${reason ? ` ${reason.trim()}` : ''}`,
        data: { from, to: tier, ...(reason ? { reason: reason.trim() } : {}) },
        at: now,
      });
      return from;
    });
    return { wallet: { ...wallet, tier, tier_changed_at: now }, previousTier, changedAt: now };
  }

  return { createMerchant, createWallet, creditWallet, createAgent, tieredWallet, setWalletTier };
}
export type AdminService = ReturnType<typeof adminService>;
