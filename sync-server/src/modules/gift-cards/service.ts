import type { AppContext } from '../../context.ts';
import { deliveryService } from './delivery.ts';
import { type RateSource, fxServiceRateSource } from '../fx/index.ts';
import { issuingService } from './issuing.ts';
import { lifecycleService } from './lifecycle.ts';
import { programIssuing } from './program-issues.ts';
import { redemptionService } from './redemption.ts';

export type { Issuer, Redeemer, RequestIds } from './drafts.ts';
export type { IssueOutcome } from './issuing.ts';
export { giftCardNotFound, stateError } from './errors.ts';

/**
 * The module's services in one object, for its routes, its worker and the modules that draw on
 * gift cards (the shop's checkout): each job lives in its own file (issuing, program issues,
 * redemption, lifecycle, delivery); this only puts them together.
 */
function buildGiftCards(context: AppContext, rates: RateSource) {
  const lifecycle = lifecycleService(context);
  return {
    ...issuingService(context),
    ...programIssuing(context),
    ...lifecycle,
    ...redemptionService(context, rates, lifecycle),
    ...deliveryService(context),
  };
}

export type GiftCards = ReturnType<typeof buildGiftCards>;

/** One per app context, shared by the routes and the worker (the first caller's rate source wins). */
const built = new WeakMap<AppContext, GiftCards>();

export function giftCardService(context: AppContext, rates: RateSource = fxServiceRateSource(context.fx)): GiftCards {
  let cards = built.get(context);
  if (!cards) {
    cards = buildGiftCards(context, rates);
    built.set(context, cards);
  }
  return cards;
}
