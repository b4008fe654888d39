import { GIFT_CARD_TENDER_RETURN_HOURS } from '@tapline/shared/limits';
import { createHash } from 'node:crypto';
import { toMajor } from '@tapline/shared/money';
import type { Mode } from '../../auth/secrets.ts';
import type { AppContext } from '../../context.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { Queryable } from '../../db/database.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { transfer } from '../../ledger/ledger.ts';
import { liability } from './drafts.ts';
import { findCard, restoreCardBalance } from './store.ts';
import { type GiftCardReturnRow, type GiftCardTender, findGiftCardReturn, insertGiftCardReturn, lockGiftCardTenders } from './till-tenders-store.ts';

export { type GiftCardTender, lockGiftCardTenders } from './till-tenders-store.ts';

/**
 * A gift card that paid part of a till sale (docs/till.md, "Gift cards at the till"): the kiosk
 * redeems the card into the merchant's wallet (POST /api/merchant/gift-cards/redeem with its
 * terminal token) and names the redemption as the till sale's `gift_card` tender. Money goes back
 * to the card when the split sale is cancelled (the whole redemption) or the till sale refunded
 * (its share), as a return recorded beside the immutable redemption.
 */

/** Why a redemption cannot be a till tender of this terminal in `currency`, or null. */
export function giftCardTenderProblem(tender: GiftCardTender | undefined, scope: { terminalId: string; mode: Mode; currency: string }): string | null {
  if (!tender || tender.mode !== scope.mode || tender.redeemer_kind !== 'terminal' || tender.terminal_id !== scope.terminalId) {
    return 'no gift card redemption made by this till has this id';
  }
  if (tender.subscription_activation_id !== null) return 'a subscription gift pays no sale';
  if (tender.currency !== scope.currency || tender.credited_currency !== scope.currency) {
    return `the card is in ${tender.currency}: a till redeems it in the currency it sells in (${scope.currency}), without conversion`;
  }
  if (tender.returned > 0) return 'it was given back to the card';
  return null;
}

/** The id of the return of a whole gift card tender (a split sale cancelled): derived, so it happens once. */
export function tenderReturnId(redemptionId: string): string {
  return `gcret_${createHash('sha256').update(`gift-card-tender-return:${redemptionId}`).digest('hex').slice(0, 32)}`;
}

/**
 * Gives `amount` of a redemption back, in the caller's transaction (the card locked by
 * lockGiftCardTenders): from the merchant's wallet to the card's balance (the gift-card liability),
 * the card active again. A card that has ended (expired, cancelled, refunded) takes nothing back:
 * the merchant keeps the money and the till gives it in cash (`toCard` false), as the store does.
 */
export async function returnToCard(
  tx: Queryable,
  tender: GiftCardTender,
  values: { id: string; amount: number; reason: 'tender_return' | 'refund'; refundId: string | null; terminalId: string | null; now: Date },
): Promise<{ toCard: boolean; transferId: string | null }> {
  if (values.amount <= 0 || values.amount > tender.amount_drawn - tender.returned) {
    throw new Error(`gift card tender ${tender.id}: cannot give back ${values.amount} of ${tender.amount_drawn - tender.returned}`);
  }
  const toCard = tender.card_status === 'active' || tender.card_status === 'used';
  let transferId: string | null = null;
  if (toCard) {
    await restoreCardBalance(tx, tender.card_id, values.amount, values.now);
    transferId = `gift_card_return:${values.id}`;
    await transfer(tx, {
      id: transferId,
      mode: tender.mode,
      kind: 'gift_card_return',
      legs: [
        { account: walletAccount(tender.redeemer_wallet_id, tender.currency), amount: -values.amount },
        { account: liability(tender.currency), amount: values.amount },
      ],
      metadata: { cardId: tender.card_id, redemptionId: tender.id, ...(values.refundId ? { refundId: values.refundId } : {}) },
    });
  }
  await insertGiftCardReturn(tx, { id: values.id, redemption_id: tender.id, card_id: tender.card_id, mode: tender.mode, amount: values.amount, reason: values.reason, to_card: toCard, refund_id: values.refundId, terminal_id: values.terminalId, transfer_id: transferId, created_at: values.now });
  return { toCard, transferId };
}


/** The answer of a gift card tender's return (major units). */
export function giftCardReturnRecord(row: GiftCardReturnRow, card: { amount_remaining: number; status: string } | undefined) {
  return {
    id: row.id,
    redemptionId: row.redemption_id,
    cardId: row.card_id,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    returnedTo: row.to_card ? ('card' as const) : ('cash' as const),
    reason: row.reason,
    terminalId: row.terminal_id,
    cardAmountRemaining: card ? toMajor(Number(card.amount_remaining), row.currency) : null,
    cardStatus: card?.status ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * A split sale cancelled: the gift card that paid part of it gets the whole redemption back
 * (docs/till.md, "Gift cards at the till"). Only a redemption made by this till (or, with the
 * merchant's key, one of its tills), that no till sale claims, within
 * GIFT_CARD_TENDER_RETURN_HOURS; its return id derives from the redemption, so asking again
 * answers the same return and money moves once.
 */
export async function returnGiftCardTender(
  context: AppContext,
  actor: { merchantWalletId: string; mode: Mode; terminalId: string | null },
  redemptionId: string,
) {
  const id = tenderReturnId(redemptionId);
  const now = context.now();
  const notFoundHere = () => notFound('redemption_not_found', `No gift card redemption ${redemptionId} made by ${actor.terminalId ? 'this till' : 'your tills'}`);
  const answer = async (row: GiftCardReturnRow) => giftCardReturnRecord(row, await findCard(context.db, row.card_id));
  const done = await findGiftCardReturn(context.db, id);
  if (done) {
    if (actor.terminalId !== null && done.terminal_id !== actor.terminalId) throw notFoundHere();
    return answer(done);
  }
  const row = await context.db.transaction(async (tx) => {
    const tender = (await lockGiftCardTenders(tx, [redemptionId])).get(redemptionId);
    if (
      !tender ||
      tender.mode !== actor.mode ||
      tender.redeemer_kind !== 'terminal' ||
      tender.redeemer_wallet_id !== actor.merchantWalletId ||
      (actor.terminalId !== null && tender.terminal_id !== actor.terminalId)
    ) {
      throw notFoundHere();
    }
    // A concurrent first return committed while this one waited for the card's lock.
    const raced = await findGiftCardReturn(tx, id);
    if (raced) return raced;
    if (tender.claimed_by !== null) {
      throw conflict('tender_claimed', `Redemption ${redemptionId} pays till sale ${tender.claimed_by}: refund that sale, and its refund goes back to each tender`);
    }
    if (tender.returned > 0) throw conflict('nothing_to_refund', `Redemption ${redemptionId} was given back already`);
    if (now.getTime() - tender.created_at.getTime() > GIFT_CARD_TENDER_RETURN_HOURS * 3_600_000) {
      throw conflict('tender_return_expired', `Redemption ${redemptionId} was made more than ${GIFT_CARD_TENDER_RETURN_HOURS} hours ago: the merchant settles it with the customer`);
    }
    await returnToCard(tx, tender, { id, amount: tender.amount_drawn, reason: 'tender_return', refundId: null, terminalId: tender.terminal_id, now });
    return (await findGiftCardReturn(tx, id))!;
  });
  return answer(row);
}
