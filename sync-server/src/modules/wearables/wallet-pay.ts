import type { TypedApp } from '../../http/typed-app.ts';
import { toMajor, toMinor } from '@tapline/shared/money';
import { ErrorBody, WalletPayBody, WalletPayResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest } from '../../http/errors.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { canonicalHandle, displayHandle, supportedCurrency } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance, transfer } from '../../ledger/ledger.ts';
import { checkTierMovement, lockWalletRow, requireWallet, tierRates } from '../wallets/index.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { recordMerchantWalletPayment } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

/**
 * Wallet to wallet: the signed-in holder pays another @handle (what the /pay/<handle> page a
 * wearable redirects to calls). One balanced transfer; Idempotency-Key makes a retry safe.
 * When the @handle is a merchant's, the same transaction records the payment for the merchant
 * (merchant_wallet_payments: its payments view) and writes its wallet.payment.received event.
 */
export async function walletPayRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;

  app.post('/api/wallet/pay', {
    config: { auth: ['wallet'], idempotency: 'optional' },
    schema: {
      tags: ['wallet'],
      summary: 'Pay another wallet from the signed-in wallet (the /pay/<handle> page); Idempotency-Key honoured',
      description: 'Body {to, amount (major units), currency? (default: the recipient\'s), note?}. Insufficient funds: 422 insufficient_funds. Paying another person (not a merchant) counts against both wallets\' verification tiers (docs/wallet-tiers.md): 422 tier_daily_out_limit_exceeded when the payer\'s money out for the day is used up, 422 recipient_tier_limit_exceeded when the recipient\'s wallet cannot receive that much now (nothing of its balance is told). Paying a merchant\'s @handle sends the merchant wallet.payment.received {transferId, merchantId, amount, currency, payerHandle, note, receivedAt} and lists the payment in its GET /api/merchant/received (channel pay_page).',
      body: WalletPayBody,
      response: { 201: WalletPayResponse, ...errors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'wallet');
    const body = request.body;
    const recipient = await requireWallet(db, canonicalHandle(body.to), principal.mode);
    if (recipient.id === principal.walletId) throw badRequest('cannot_pay_self', 'A wallet cannot pay itself');
    const currency = supportedCurrency(body.currency ?? recipient.currency);
    const amount = toMinor(body.amount, currency);
    const transferId = idempotentId(request, 'wallet_pay') ?? newId('wtx');
    const note = body.note?.trim() || null;
    const now = context.now();
    const payer = recipient.owner_type === 'merchant' ? undefined : await requireWallet(db, principal.handle, principal.mode);
    const rates = payer ? await tierRates(context) : undefined;
    const balance = await db.transaction(async (tx) => {
      if (payer && rates) {
        // Between people: the verification tiers (docs/wallet-tiers.md) count it as the payer's money out and the
        // recipient's money in. Both rows locked in id order, so two payments crossing each other cannot deadlock.
        for (const id of [payer.id, recipient.id].sort()) await lockWalletRow(tx, id);
        await checkTierMovement(context, tx, payer, { id: `${transferId}:out`, kind: 'p2p_out', amount, currency }, rates);
        await checkTierMovement(context, tx, recipient, { id: `${transferId}:in`, kind: 'p2p_in', amount, currency }, rates);
      }
      await transfer(tx, {
        id: transferId,
        mode: principal.mode,
        kind: 'wallet_payment',
        legs: [
          { account: walletAccount(principal.walletId, currency), amount: -amount },
          { account: walletAccount(recipient.id, currency), amount },
        ],
        metadata: { from: principal.handle, to: recipient.handle, ...(note ? { note } : {}) },
      });
      if (recipient.owner_type === 'merchant' && recipient.merchant_id) {
        // A retry of the same Idempotency-Key finds its row: no second record, no second event.
        const recorded = await recordMerchantWalletPayment(tx, {
          id: transferId,
          merchantId: recipient.merchant_id,
          mode: principal.mode,
          merchantWalletId: recipient.id,
          payerWalletId: principal.walletId,
          payerHandle: principal.handle,
          amount,
          currency,
          note,
          at: now,
        });
        if (recorded) {
          await enqueueEvent(tx, {
            merchantId: recipient.merchant_id,
            mode: principal.mode,
            type: 'wallet.payment.received',
            data: { transferId, merchantId: recipient.merchant_id, amount: toMajor(amount, currency), currency, payerHandle: displayHandle(principal.handle), note, receivedAt: now.toISOString() },
            at: now,
          });
        }
      }
      return accountBalance(tx, walletAccount(principal.walletId, currency), principal.mode);
    });
    return reply.status(201).send({
      transferId,
      status: 'completed',
      from: displayHandle(principal.handle),
      to: displayHandle(recipient.handle),
      amount: toMajor(amount, currency),
      currency,
      note,
      balance: toMajor(balance, currency),
      createdAt: now.toISOString(),
    });
  });
}
