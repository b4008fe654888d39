import { GIFT_CARD_LIMITS } from '@tapline/shared/limits';
import { type GiftCardRedeemBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { newId, verifyPin } from '../../auth/secrets.ts';
import { ApiError, forbidden, retryAfterSeconds, unprocessable } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, transfer } from '../../ledger/ledger.ts';
import { type ActivationRow, activationsOf, findActivation, insertActivation, subscriptionGiftPeriod } from '../subscriptions/index.ts';
import { canonicalCode, codeHash } from './codes.ts';
import { type Redeemer, type RequestIds, liability } from './drafts.ts';
import { giftCardNotFound, overdrawn, stateError } from './errors.ts';
import { type RateSource, convertMinor } from '../fx/index.ts';
import { type LifecycleService, expireLocked } from './lifecycle.ts';
import { effectiveStatus, redeemedCard, redemptionRecord } from './records.ts';
import {
  type CardRow,
  type RedemptionRow,
  drawFromCard,
  findCard,
  findCardByHash,
  findRedemption,
  insertRedemption,
  lockCard,
  recordVerifyMiss,
  reserveCardPinAttempt,
  settleCardPinAttempt,
  verifyMissesOf,
} from './store.ts';
import { parseAmount } from './validation.ts';

/**
 * Verify, redeem and the PIN rule. An overdue card met on the way is expired through `lifecycle`
 * (its balance goes back to the issuer) before the answer.
 */
export function redemptionService(context: AppContext, rates: RateSource, lifecycle: LifecycleService) {
  /**
   * Public verify: never the issuer. An IP that asked about too many unknown codes is refused
   * until its window ends; with 2^256 codes no answer pattern can be mined anyway.
   */
  async function verify(rawCode: string, ip: string) {
    const now = context.now();
    const { verifyMissesMax, verifyMissWindowSeconds } = verifyLimits();
    const misses = await verifyMissesOf(context.db, ip, now);
    if (misses && misses.count >= verifyMissesMax) {
      const seconds = retryAfterSeconds(misses.windowEndsAt, now);
      throw new ApiError(429, 'verify_rate_limited', `Too many unknown gift card codes from this address; retry in ${seconds} seconds`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    const code = canonicalCode(rawCode);
    let card = code ? await findCardByHash(context.db, codeHash(code)) : undefined;
    if (!card) {
      await recordVerifyMiss(context.db, ip, now, verifyMissWindowSeconds);
      throw giftCardNotFound();
    }
    if (effectiveStatus(card, now) !== card.status) {
      await lifecycle.expireDue(card.id);
      card = (await findCard(context.db, card.id)) ?? card;
    }
    const status = effectiveStatus(card, now);
    return {
      valid: status === 'active',
      amount: redeemedCard(card, now).amountRemaining,
      amountRemaining: redeemedCard(card, now).amountRemaining,
      currency: card.currency,
      expiresAt: card.expires_at.toISOString(),
      hasPin: card.pin_hash !== null,
      locked: card.locked_to_handle !== null,
      status,
    };
  }

  function verifyLimits() {
    const { giftCardVerifyMissesMax, giftCardVerifyMissWindowSeconds } = context.config;
    return { verifyMissesMax: giftCardVerifyMissesMax, verifyMissWindowSeconds: giftCardVerifyMissWindowSeconds };
  }

  /**
   * Redeem in full or in part into the redeemer's wallet (or activate a subscription gift).
   * Checks: state (used 409, expired 410, cancelled/refunded/scheduled 409), handle lock and
   * merchant acceptance (403), PIN (403; 5 wrong: 429 for 15 minutes), amount (422). The balance
   * is re-checked under the card's row lock, so concurrent redemptions never overdraw it.
   */
  async function redeem(redeemer: Redeemer, body: GiftCardRedeemBody, ids: RequestIds) {
    const now = context.now();
    const code = canonicalCode(body.code);
    const snapshot = code ? await findCardByHash(context.db, codeHash(code)) : undefined;
    if (!snapshot || snapshot.mode !== redeemer.mode) throw giftCardNotFound();
    if (ids.redemptionId) {
      const done = await existingRedemption(ids.redemptionId, now);
      if (done) return done;
    }
    const requested = body.redeemAmount === undefined ? null : parseAmount(body.redeemAmount, snapshot.currency, 'redeemAmount');
    const target = body.targetCurrency === undefined ? snapshot.currency : supportedCurrency(body.targetCurrency, 'targetCurrency');

    if (snapshot.status === 'active' && effectiveStatus(snapshot, now) === 'expired') {
      await lifecycle.expireDue(snapshot.id);
      throw stateError('expired');
    }
    if (snapshot.status !== 'active') throw stateError(snapshot.status);
    if (snapshot.locked_to_handle !== null && snapshot.locked_to_handle !== redeemer.handle) {
      throw forbidden('handle_locked', 'This gift card is locked to another @handle');
    }
    if (
      (redeemer.kind === 'merchant' || redeemer.kind === 'terminal') &&
      snapshot.issuer_type === 'merchant' &&
      !snapshot.multi_merchant &&
      snapshot.issuer_id !== redeemer.merchantId
    ) {
      throw forbidden('card_not_accepted', 'This gift card can only be redeemed at the merchant that issued it (it is not multiMerchant)');
    }
    if (snapshot.subscription_plan_id !== null && (requested !== null || target !== snapshot.currency)) {
      throw unprocessable('subscription_gift_not_divisible', 'A subscription gift is redeemed whole: no redeemAmount or targetCurrency');
    }
    await checkPin(snapshot, body.pinCode, now);
    if (requested !== null && requested > snapshot.amount_remaining) throw overdrawn();
    const fx = target === snapshot.currency ? { rate: '1', asOf: null as string | null } : await rates.rate(snapshot.currency, target);
    const redemptionId = ids.redemptionId ?? newId('gcr');

    const outcome = await context.db.transaction(async (tx): Promise<{ expired: true } | { card: CardRow; redemption: RedemptionRow; activation?: ActivationRow }> => {
      const card = await lockCard(tx, snapshot.id);
      if (!card) throw giftCardNotFound();
      if (card.status === 'active' && effectiveStatus(card, now) === 'expired') {
        await expireLocked(tx, [card], now);
        return { expired: true };
      }
      if (card.status !== 'active') throw stateError(card.status);
      const drawn = requested ?? card.amount_remaining;
      if (drawn > card.amount_remaining) throw overdrawn();
      const credited = card.subscription_plan_id !== null ? 0 : convertMinor(drawn, card.currency, target, fx.rate, 'down');
      if (card.subscription_plan_id === null && credited <= 0) {
        throw unprocessable('amount_too_small_to_convert', `${drawn} minor units of ${card.currency} convert to nothing in ${target}`);
      }
      return applyRedemption(tx, card, redeemer, { id: redemptionId, drawn, credited, target, rate: fx.rate, asOf: fx.asOf }, now);
    });
    if ('expired' in outcome) throw stateError('expired');
    return { card: redeemedCard(outcome.card, now), redemption: redemptionRecord(outcome.redemption, outcome.activation) };
  }

  async function existingRedemption(id: string, now: Date) {
    const redemption = await findRedemption(context.db, id);
    if (!redemption) return undefined;
    const card = await findCard(context.db, redemption.card_id);
    const activation = redemption.subscription_activation_id ? await findActivation(context.db, redemption.subscription_activation_id) : undefined;
    return { card: redeemedCard(card!, now), redemption: redemptionRecord(redemption, activation) };
  }

  /** The PIN rule, outside any transaction (scrypt is slow; PGlite has one connection). The store's checkout uses it too. */
  async function checkPin(card: CardRow, pin: string | undefined, now: Date): Promise<void> {
    if (card.pin_hash === null) return;
    const max = GIFT_CARD_LIMITS.pinAttemptsMax;
    const lockMinutes = GIFT_CARD_LIMITS.pinLockMinutes;
    const lockedError = (until: Date) => {
      const seconds = retryAfterSeconds(until, now);
      return new ApiError(429, 'pin_attempts_exceeded', `Too many wrong PINs: this gift card is locked until ${until.toISOString()}`, {
        headers: { 'retry-after': String(seconds) },
      });
    };
    if (card.pin_locked_until && card.pin_locked_until.getTime() > now.getTime()) throw lockedError(card.pin_locked_until);
    if (pin === undefined || pin === '') throw forbidden('pin_required', 'This gift card needs its PIN (pinCode)');
    const reservation = await reserveCardPinAttempt(context.db, card.id, now, max, lockMinutes);
    if (reservation.outcome === 'locked') throw lockedError(reservation.lockedUntil);
    const correct = await verifyPin(pin, card.pin_hash);
    const lockedUntil = await settleCardPinAttempt(context.db, card.id, reservation.attempt, correct, now, max, lockMinutes);
    if (!correct) {
      throw forbidden('wrong_pin', lockedUntil ? `Wrong PIN: too many wrong PINs, the card is locked until ${lockedUntil.toISOString()}` : 'Wrong PIN');
    }
  }

  /** Activation records of redemptions, for history answers. */
  async function redemptionAnswers(rows: readonly RedemptionRow[]) {
    const activations = await activationsOf(context.db, rows.flatMap((row) => (row.subscription_activation_id ? [row.subscription_activation_id] : [])));
    return rows.map((row) => redemptionRecord(row, row.subscription_activation_id ? activations.get(row.subscription_activation_id) : undefined));
  }

  return { verify, redeem, checkPin, redemptionAnswers };
}

/**
 * One redemption on a locked, active card: the balance, the record, and ONE ledger transfer
 * from the liability account to the redeemer's wallet (through the FX account when the
 * currencies differ: balanced per currency). A subscription gift pays the plan's merchant and
 * records the activation instead of crediting the redeemer.
 */
export async function applyRedemption(
  tx: Queryable,
  card: CardRow,
  redeemer: Redeemer,
  values: { id: string; drawn: number; credited: number; target: string; rate: string; asOf: string | null },
  now: Date,
): Promise<{ card: CardRow; redemption: RedemptionRow; activation?: ActivationRow }> {
  const transferId = `gift_card_redeem:${values.id}`;
  const updated = await drawFromCard(tx, card.id, values.drawn, now, redeemer.kind === 'delivery');
  let activation: ActivationRow | undefined;
  let legs: TransferLeg[];
  if (card.subscription_plan_id !== null && card.gift_months !== null) {
    // The months chain after earlier gifts, or extend the holder's running subscription to the plan.
    const months = await subscriptionGiftPeriod(tx, { planId: card.subscription_plan_id, walletId: redeemer.walletId, months: card.gift_months }, now);
    activation = await insertActivation(tx, {
      id: newId('sact'),
      plan_id: card.subscription_plan_id,
      card_id: card.id,
      mode: card.mode,
      wallet_id: redeemer.walletId,
      handle: redeemer.handle,
      months: card.gift_months,
      starts_at: months.startsAt,
      ends_at: months.endsAt,
      created_at: now,
    });
    // The plan is paid: the liability moves to the plan's merchant (the issuer) as subscription revenue.
    legs = [
      { account: liability(card.currency), amount: -values.drawn },
      { account: walletAccount(card.issuer_wallet_id, card.currency), amount: values.drawn },
    ];
  } else if (values.target === card.currency) {
    legs = [
      { account: liability(card.currency), amount: -values.drawn },
      { account: walletAccount(redeemer.walletId, card.currency), amount: values.drawn },
    ];
  } else {
    legs = [
      { account: liability(card.currency), amount: -values.drawn },
      { account: systemAccount('fx', card.currency), amount: values.drawn },
      { account: systemAccount('fx', values.target), amount: -values.credited },
      { account: walletAccount(redeemer.walletId, values.target), amount: values.credited },
    ];
  }
  const redemption: RedemptionRow = {
    id: values.id,
    card_id: card.id,
    mode: card.mode,
    amount_drawn: values.drawn,
    credited_amount: activation ? 0 : values.credited,
    credited_currency: activation ? card.currency : values.target,
    fx_rate: activation ? '1' : values.rate,
    fx_as_of: values.asOf,
    redeemer_wallet_id: redeemer.walletId,
    redeemer_handle: redeemer.handle,
    redeemer_kind: redeemer.kind,
    terminal_id: redeemer.terminalId,
    transfer_id: transferId,
    subscription_activation_id: activation?.id ?? null,
    created_at: now,
    currency: card.currency,
  };
  await insertRedemption(tx, redemption);
  // Last statement before COMMIT: a hot merchant account is locked only from here to the commit.
  await transfer(tx, {
    id: transferId,
    mode: card.mode,
    kind: activation ? 'gift_card_subscription' : 'gift_card_redeem',
    legs,
    metadata: { cardId: card.id, redemptionId: values.id, ...(values.target !== card.currency ? { fxRate: values.rate } : {}) },
  });
  return activation ? { card: updated, redemption, activation } : { card: updated, redemption };
}

