import { GIFT_CARD_TENDER_RETURN_HOURS, ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { redeemerOf } from './principals.ts';
import { giftCardErrors } from './routes-issuer.ts';
import { returnGiftCardTender } from './till-tenders.ts';

const GiftCardReturn = Type.Object({
  id: Type.String(),
  redemptionId: Type.String(),
  cardId: Type.String(),
  amount: Type.Number({ description: 'Major units of the card\'s currency' }),
  currency: Type.String(),
  returnedTo: Type.Union([Type.Literal('card'), Type.Literal('cash')], { description: 'card: back on the card\'s balance; cash: the card had ended, the till gives it in cash' }),
  reason: Type.String({ description: 'tender_return (a split sale cancelled) or refund (a till sale refunded)' }),
  terminalId: Type.Union([Type.String(), Type.Null()]),
  cardAmountRemaining: Type.Union([Type.Number(), Type.Null()]),
  cardStatus: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

/** The till's side of gift cards that paid part of a sale: giving one back when its split sale is cancelled. */
export async function tillGiftCardRoutes(app: TypedApp, context: AppContext): Promise<void> {
  app.post('/api/pos/gift-card-redemptions/:redemptionId/return', {
    config: { auth: ['merchant', 'terminal'] },
    schema: {
      tags: ['pos', 'gift-cards'],
      summary: 'Give back a gift card tender: the redemption that paid part of a till sale the cashier cancelled',
      description:
        'A till takes a gift card by redeeming it into the merchant\'s wallet (POST /api/merchant/gift-cards/redeem with its terminal token and ' +
        'redeemAmount) and names the redemption as the till sale\'s gift_card tender. When the cashier cancels the split sale before it is paid, ' +
        'this puts the whole redemption back on the card (the merchant\'s wallet back to the card\'s balance, the card active again), once, ' +
        `without a manager PIN. A card that has ended meanwhile (expired, cancelled, refunded) takes nothing back: returnedTo is cash and the till gives it in cash. ` +
        `Refused once a till sale claims it (409 \`tender_claimed\`: refund that sale), more than ${GIFT_CARD_TENDER_RETURN_HOURS} hours after the redemption ` +
        '(409 `tender_return_expired`), when it was given back by a refund (409 `nothing_to_refund`); 404 `redemption_not_found` for a redemption ' +
        'that is not this till\'s (a merchant key: not one of its tills\'). 422 `insufficient_funds` when the merchant\'s wallet no longer holds it. ' +
        'Asking again answers the same return (its id derives from the redemption), so a retry never gives back twice.',
      params: Type.Object({ redemptionId: Type.String({ maxLength: ID_LENGTH_MAX }) }),
      response: { 201: GiftCardReturn, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const redeemer = await redeemerOf(context.db, request);
    const answer = await returnGiftCardTender(context, { merchantWalletId: redeemer.walletId, mode: redeemer.mode, terminalId: redeemer.terminalId }, request.params.redemptionId);
    return reply.status(201).send(answer);
  });
}
