import { type ApiError, conflict, gone, notFound, unprocessable } from '../../http/errors.ts';

export function giftCardNotFound(): ApiError {
  return notFound('gift_card_not_found', 'No such gift card');
}

/** The answer for a card that cannot be redeemed in its state (spec: used 409, expired 410); the shop's checkout uses it too. */
export function stateError(status: string): ApiError {
  switch (status) {
    case 'used':
      return conflict('gift_card_used', 'This gift card has already been fully redeemed');
    case 'expired':
      return gone('gift_card_expired', 'This gift card has expired');
    case 'cancelled':
      return conflict('gift_card_cancelled', 'This gift card has been cancelled');
    case 'refunded':
      return conflict('gift_card_refunded', 'This gift card has been refunded to its issuer');
    case 'scheduled':
      return conflict('gift_card_scheduled', 'This gift card is scheduled for delivery and cannot be redeemed before then');
    default:
      return conflict('gift_card_not_active', `This gift card is ${status}`);
  }
}

export function overdrawn(): ApiError {
  return unprocessable('redeem_amount_exceeds_balance', `redeemAmount is greater than the remaining balance of the card`);
}
