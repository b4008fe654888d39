import { type Static, type TSchema, Type } from 'typebox';
import { CurrencyCode, HandleInput, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { GIFT_CARD_CURRENCIES, GIFT_CARD_DESIGN_THEMES } from '../gift-card-rules.ts';
import { AMOUNT_MAJOR_MAX, DATE_TEXT_LENGTH_MAX, DESCRIPTION_LENGTH_MAX, GIFT_CARD_LIMITS, ID_LENGTH_MAX, NAME_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, URL_LENGTH_MAX } from '../limits.ts';

/**
 * Gift cards (spec: "Gift card", its state table and endpoint tables; CONTRACT.md, Gift cards).
 * Amounts cross the API in major units; the ledger keeps minor units.
 */

export { GIFT_CARD_CURRENCIES, GIFT_CARD_DESIGN_THEMES } from '../gift-card-rules.ts';
export type GiftCardCurrency = (typeof GIFT_CARD_CURRENCIES)[number];
export const GiftCardCurrency = literalUnion(GIFT_CARD_CURRENCIES, { description: GIFT_CARD_CURRENCIES.join(', ') });

export type GiftCardDesignTheme = (typeof GIFT_CARD_DESIGN_THEMES)[number];
export const GiftCardDesignTheme = literalUnion(GIFT_CARD_DESIGN_THEMES, { description: `${GIFT_CARD_DESIGN_THEMES.join(', ')}; default: default` });

/** CONTRACT.md: scheduled (awaiting deliverAt), active, used, expired, cancelled, refunded. */
export const GIFT_CARD_STATUSES = ['scheduled', 'active', 'used', 'expired', 'cancelled', 'refunded'] as const;
export type GiftCardStatus = (typeof GIFT_CARD_STATUSES)[number];
export const GiftCardStatus = literalUnion(GIFT_CARD_STATUSES, { description: GIFT_CARD_STATUSES.join(', ') });

export const GIFT_CARD_ISSUER_TYPES = ['merchant', 'wallet', 'agent'] as const;
export type GiftCardIssuerType = (typeof GIFT_CARD_ISSUER_TYPES)[number];
export const GiftCardIssuerType = literalUnion(GIFT_CARD_ISSUER_TYPES, { description: 'merchant (API key), wallet (wallet holder) or agent' });


/** The code: gc_ + 64 lower-case hex (256 random bits). Accepted in any case. */
export const GIFT_CARD_CODE_PATTERN = '^[gG][cC]_[0-9a-fA-F]{64}$';
export const GiftCardCode = Type.String({ pattern: GIFT_CARD_CODE_PATTERN, description: 'The card code: gc_ followed by 64 hexadecimal characters' });

const HexColour = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'Hex colour: #rgb or #rrggbb' });
export const GiftCardPin = Type.String({ pattern: '^[0-9]{4,8}$', description: '4 to 8 digits; stored with scrypt' });
const ExpiresInMonths = Type.Integer({ minimum: GIFT_CARD_LIMITS.expiresInMonthsMin, maximum: GIFT_CARD_LIMITS.expiresInMonthsMax, default: GIFT_CARD_LIMITS.expiresInMonthsDefault, description: '1 to 24, default 12: calendar months from issue' });
const Message = Type.String({ maxLength: GIFT_CARD_LIMITS.messageLengthMax, description: 'At most 160 characters' });

export const GiftCardBrandConfig = Type.Object(
  {
    brandName: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    logoUrl: Type.Optional(Type.String({ pattern: '^[hH][tT][tT][pP][sS]://\\S+$', maxLength: URL_LENGTH_MAX, description: 'https URL only' })),
    primaryColor: Type.Optional(HexColour),
    accentColor: Type.Optional(HexColour),
  },
  { additionalProperties: false, description: 'Branding shown on the card' },
);
export type GiftCardBrandConfig = Static<typeof GiftCardBrandConfig>;

export const IssueGiftCardBody = Type.Object({
  amount: Type.Optional({ ...MajorAmount, description: 'Card value in major units of currency. Required, except for subscription gifts, where it is set to plan price x giftMonths (a value sent is ignored).' }),
  currency: Type.Optional({ ...GiftCardCurrency, description: `${GIFT_CARD_CURRENCIES.join(', ')}. Required, except for subscription gifts (the plan's currency).` }),
  message: Type.Optional(Message),
  pinCode: Type.Optional(GiftCardPin),
  lockedToHandle: Type.Optional({ ...HandleInput, description: 'Only the wallet with this @handle may redeem (the redeemer is the caller\'s wallet)' }),
  designTheme: Type.Optional(GiftCardDesignTheme),
  expiresInMonths: Type.Optional(ExpiresInMonths),
  brandConfig: Type.Optional(GiftCardBrandConfig),
  deliverToHandle: Type.Optional({ ...HandleInput, description: 'With deliverAt: the card is redeemed in full into this wallet at deliverAt' }),
  deliverAt: Type.Optional(Type.String({ format: 'date-time', description: 'With deliverToHandle: a future ISO 8601 datetime, before the card expires' })),
  subscriptionPlanId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'Merchant only, with giftMonths: redeeming activates this plan instead of crediting a wallet' })),
  giftMonths: Type.Optional(Type.Integer({ minimum: 1, maximum: GIFT_CARD_LIMITS.giftMonthsMax, description: 'Merchant only, with subscriptionPlanId: 1 to 24 months' })),
  multiMerchant: Type.Optional(Type.Boolean({ description: 'true: any merchant may redeem the card; false (default): on the merchant surface only the issuing merchant accepts a merchant-issued card' })),
});
export type IssueGiftCardBody = Static<typeof IssueGiftCardBody>;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The card as its issuer and the admin see it. */
const cardProperties = {
  id: Type.String({ description: 'gcard_ + opaque' }),
  codePrefix: Type.String({ description: 'The first 10 characters of the code (gc_ + 7 hex)' }),
  status: GiftCardStatus,
  amount: Type.Number({ description: 'Value issued, major units' }),
  amountRemaining: Type.Number({ description: 'Balance left, major units' }),
  currency: Type.String(),
  expiresAt: Timestamp,
  message: Nullable(Type.String()),
  designTheme: Type.String(),
  brand: Nullable(GiftCardBrandConfig),
  hasPin: Type.Boolean(),
  lockedToHandle: Nullable(Type.String()),
  multiMerchant: Type.Boolean(),
  deliverToHandle: Nullable(Type.String()),
  deliveryScheduledAt: Nullable(Timestamp),
  deliveredAt: Nullable(Timestamp),
  subscriptionPlanId: Nullable(Type.String()),
  giftMonths: Nullable(Type.Integer()),
  source: Type.String({ description: 'single, bulk, import, program or reward' }),
  batchId: Nullable(Type.String()),
  programId: Nullable(Type.String()),
  externalRef: Nullable(Type.String()),
  rewardRuleId: Nullable(Type.String()),
  issuerType: GiftCardIssuerType,
  issuerId: Type.String({ description: 'Merchant id, wallet id or agent id' }),
  issuerHandle: Type.String({ description: 'The @handle of the wallet that paid for the card' }),
  mode: Mode,
  endedAt: Nullable(Timestamp),
  endReason: Nullable(Type.String({ description: 'used, expired, cancelled, refunded' })),
  returnedAmount: Type.Number({ description: 'Major units returned to the issuer on expiry, cancel or refund' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const GiftCardRecord = Type.Object(cardProperties);
export type GiftCardRecord = Static<typeof GiftCardRecord>;

// Optional: the code is never stored, so an Idempotent-Replayed answer omits code and qrPng, and
// so does a batch's answer when a re-run of its Idempotency-Key (after a crash) finds the cards
// its first run made.
const issuedProperties = {
  ...cardProperties,
  code: Type.Optional(Type.String({ description: 'gc_ + 64 hex. Returned in plaintext in this answer only (never stored; an Idempotent-Replayed answer omits code and qrPng)' })),
  qrPng: Type.Optional(Type.String({ description: 'The code as a QR code: a PNG data URL, data:image/png;base64,...' })),
};
export const GiftCardIssued = Type.Object(issuedProperties);
export type GiftCardIssued = Static<typeof GiftCardIssued>;

export const GiftCardBulkBody = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: GIFT_CARD_LIMITS.bulkCountMax, description: '1 to 100 identical cards' }),
  amount: MajorAmount,
  currency: GiftCardCurrency,
  designTheme: Type.Optional(GiftCardDesignTheme),
  expiresInMonths: Type.Optional(ExpiresInMonths),
  message: Type.Optional(Message),
  pinCode: Type.Optional(GiftCardPin),
  lockedToHandle: Type.Optional(HandleInput),
  brandConfig: Type.Optional(GiftCardBrandConfig),
  multiMerchant: Type.Optional(Type.Boolean()),
});
export type GiftCardBulkBody = Static<typeof GiftCardBulkBody>;

export const GiftCardBulkResponse = Type.Object({
  batchId: Type.String(),
  count: Type.Integer(),
  cards: Type.Array(GiftCardIssued),
});

export const GiftCardImportBody = Type.Object({
  cards: Type.Array(Type.Unknown(), {
    minItems: 1,
    maxItems: 500,
    description:
      'At most 500 rows of {amount, currency, message?, designTheme?, expiresInMonths?, lockedToHandle?}. Each row is validated on its own with the issue body\'s rules; a bad row is reported in failed and never aborts the batch.',
  }),
});
export type GiftCardImportBody = Static<typeof GiftCardImportBody>;

export const GiftCardRowFailure = Type.Object({
  index: Type.Integer({ description: 'Position of the row in the request, from 0' }),
  code: Type.String({ description: 'snake_case rule that failed, e.g. amount_too_many_decimals, insufficient_funds' }),
  reason: Type.String({ description: 'Human-readable reason' }),
  externalRef: Type.Optional(Type.String()),
});

export const GiftCardImportResponse = Type.Object({
  batchId: Type.String(),
  issuedCount: Type.Integer(),
  failedCount: Type.Integer(),
  issued: Type.Array(Type.Object({ ...issuedProperties, index: Type.Integer() })),
  failed: Type.Array(GiftCardRowFailure),
});

export const GiftCardVerifyQuery = Type.Object({ code: GiftCardCode });
export const GiftCardVerifyBody = Type.Object({ code: GiftCardCode });

export const GiftCardVerifyResponse = Type.Object({
  valid: Type.Boolean({ description: 'true when the card can be redeemed now (active, not expired)' }),
  amount: Type.Number({ description: 'What the card is worth now (its remaining balance), major units' }),
  amountRemaining: Type.Number({ description: 'Same as amount' }),
  currency: Type.String(),
  expiresAt: Timestamp,
  hasPin: Type.Boolean(),
  locked: Type.Boolean({ description: 'Locked to one @handle (which one is not revealed)' }),
  status: GiftCardStatus,
});

export const GiftCardRedeemBody = Type.Object({
  code: GiftCardCode,
  pinCode: Type.Optional(Type.String({ maxLength: 64, description: 'Required when the card has a PIN' })),
  redeemAmount: Type.Optional({ ...MajorAmount, description: 'Partial redemption in the card currency; absent: the whole remaining balance' }),
  targetCurrency: Type.Optional({ ...CurrencyCode, description: 'Credit the wallet in this currency at the live mid-market FX rate, rounded down to its minor unit' }),
});
export type GiftCardRedeemBody = Static<typeof GiftCardRedeemBody>;

export const SubscriptionActivationRecord = Type.Object({
  id: Type.String(),
  planId: Type.String(),
  cardId: Type.String(),
  handle: Type.String(),
  months: Type.Integer(),
  startsAt: Timestamp,
  endsAt: Timestamp,
  createdAt: Timestamp,
});

/** CONTRACT.md, Shapes the spec leaves open: the redemption record. */
export const GiftCardRedemptionRecord = Type.Object({
  id: Type.String(),
  amount_drawn: Type.Number({ description: 'Major units of the card currency' }),
  currency: Type.String({ description: 'The card currency (of amount_drawn)' }),
  credited_amount: Type.Number({ description: 'Major units of credited_currency credited to the redeemer\'s wallet (0 for a subscription activation)' }),
  credited_currency: Type.String(),
  fx_rate: Type.Number({ description: 'Card currency -> credited currency; 1 without conversion' }),
  redeemer: Type.String({ description: 'The @handle of the wallet credited (or for which the plan was activated)' }),
  timestamp: Timestamp,
  subscription: Nullable(SubscriptionActivationRecord),
});
export type GiftCardRedemptionRecord = Static<typeof GiftCardRedemptionRecord>;

export const GiftCardRedeemedCard = Type.Object({
  id: Type.String(),
  codePrefix: Type.String(),
  status: GiftCardStatus,
  amount: Type.Number(),
  amountRemaining: Type.Number(),
  currency: Type.String(),
  expiresAt: Timestamp,
  hasPin: Type.Boolean(),
  locked: Type.Boolean(),
  mode: Mode,
});

export const GiftCardRedeemResponse = Type.Object({ card: GiftCardRedeemedCard, redemption: GiftCardRedemptionRecord });

export const GiftCardListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(GiftCardStatus),
});

const DateBound = Type.String({ maxLength: DATE_TEXT_LENGTH_MAX, description: 'ISO 8601 date or datetime; a date alone covers its whole (UTC) day' });
export const AdminGiftCardListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(GiftCardStatus),
  issuerType: Type.Optional(GiftCardIssuerType),
  issuerId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX, description: 'Merchant id, wallet id, agent id, or the issuer\'s @handle' })),
  mode: Type.Optional(Mode),
  from: Type.Optional({ ...DateBound, description: 'Issued at or after (aliases: startDate, dateFrom, createdFrom)' }),
  to: Type.Optional({ ...DateBound, description: 'Issued at or before (aliases: endDate, dateTo, createdTo)' }),
  startDate: Type.Optional(DateBound),
  endDate: Type.Optional(DateBound),
  dateFrom: Type.Optional(DateBound),
  dateTo: Type.Optional(DateBound),
  createdFrom: Type.Optional(DateBound),
  createdTo: Type.Optional(DateBound),
});
export type AdminGiftCardListQuery = Static<typeof AdminGiftCardListQuery>;

export const AdminGiftCardPatchBody = Type.Object({
  action: Type.Union([Type.Literal('cancel'), Type.Literal('refund')], {
    description: 'cancel: force-cancel; refund: refund to the issuer. Both return the remaining balance to the issuer\'s wallet through the ledger.',
  }),
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});

const figureProperties = {
  issuedCount: Type.Integer({ description: 'Cards issued (every status)' }),
  issuedValue: Type.Number({ description: 'Sum of the amounts issued' }),
  redeemedCount: Type.Integer({ description: 'Cards fully redeemed (status used)' }),
  partialCount: Type.Integer({ description: 'Cards redeemed in part: at least one redemption and a balance left' }),
  activeCount: Type.Integer({ description: 'Cards active now (expiry applied)' }),
  outstandingValue: Type.Number({ description: 'Balance of active and scheduled cards: the liability still owed' }),
  totalDrawn: Type.Number({ description: 'Sum of amount_drawn over all redemptions' }),
  redemptionRatePct: Type.Number({ description: '(redeemedCount + partialCount) / issuedCount x 100, 2 decimals; 0 with no cards' }),
  avgMinutesToFirstRedeem: Nullable(Type.Number({ description: 'Mean minutes from issue to first redemption over redeemed cards, 2 decimals; null when none' })),
};
export const GiftCardFigures = Type.Object({ ...figureProperties, currency: Type.String() });

export const GiftCardAnalytics = Type.Object({
  ...figureProperties,
  currency: Type.String({
    description:
      'The currency of the top-level money figures. With cards in one currency, that currency and the figures are exact; with several, each currency is converted at the current mid-market rate (rounded half up) into the reporting currency (query currency, default the issuer\'s home currency, USD platform-wide). byCurrency is always exact.',
  }),
  scope: Type.Object({ type: Type.String({ description: 'merchant, wallet, agent, program or platform' }), id: Nullable(Type.String()) }),
  byCurrency: Type.Record(Type.String(), GiftCardFigures, { description: 'Exact figures per card currency, keyed by currency code' }),
});
export type GiftCardAnalytics = Static<typeof GiftCardAnalytics>;

export const GiftCardAnalyticsQuery = Type.Object({
  currency: Type.Optional({ ...CurrencyCode, description: 'Reporting currency of the top-level money figures' }),
});

export const AdminGiftCardAnalyticsQuery = Type.Object({
  issuerType: Type.Optional(GiftCardIssuerType),
  issuerId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX, description: 'Merchant id, wallet id, agent id, or the issuer\'s @handle' })),
  mode: Type.Optional(Mode),
  currency: Type.Optional(CurrencyCode),
});

export const GiftCardStats = Type.Object({
  totalCount: Type.Integer(),
  byStatus: Type.Record(Type.String(), Type.Integer(), { description: 'Cards per status (every status present)' }),
  byIssuerType: Type.Record(Type.String(), Type.Integer(), { description: 'Cards per issuer type' }),
  byCurrency: Type.Record(
    Type.String(),
    Type.Object({
      issuedCount: Type.Integer(),
      issuedValue: Type.Number(),
      outstandingValue: Type.Number(),
      totalDrawn: Type.Number(),
      returnedValue: Type.Number({ description: 'Returned to issuers on expiry, cancel and refund' }),
    }),
  ),
  redemptionCount: Type.Integer(),
  issuedLast24Hours: Type.Integer(),
});

export const GiftCardStatsQuery = Type.Object({ mode: Type.Optional(Mode) });

// Programs ------------------------------------------------------------------------------------

export const CreateGiftCardProgramBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
});

export const UpdateGiftCardProgramBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  description: Type.Optional(Nullable(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX }))),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
  archived: Type.Optional(Type.Boolean({ description: 'true archives (same as status archived); false restores' })),
});

const programProperties = {
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String({ description: 'active or archived' }),
  archived: Type.Boolean(),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const GiftCardProgramRecord = Type.Object(programProperties);
export const GiftCardProgramDetail = Type.Object({ ...programProperties, analytics: GiftCardAnalytics });

export const GiftCardProgramIssueBody = Type.Object({
  employees: Type.Array(Type.Unknown(), {
    minItems: 1,
    maxItems: 500,
    description:
      'At most 500 rows of {handle, amount, currency, deliverAt?, externalRef?}. Each card is locked to its @handle; with deliverAt it is redeemed into that wallet then. A row whose externalRef this program already issued is skipped.',
  }),
  message: Type.Optional(Message),
  designTheme: Type.Optional(GiftCardDesignTheme),
  expiresInMonths: Type.Optional(ExpiresInMonths),
});

export const GiftCardProgramIssueResponse = Type.Object({
  batchId: Type.String(),
  issuedCount: Type.Integer(),
  failedCount: Type.Integer(),
  skippedCount: Type.Integer(),
  issued: Type.Array(Type.Object({ ...issuedProperties, index: Type.Integer() })),
  failed: Type.Array(GiftCardRowFailure),
  skipped: Type.Array(Type.Object({ index: Type.Integer(), externalRef: Type.String(), cardId: Type.String(), reason: Type.String() })),
});

// Reward rules -------------------------------------------------------------------------------

const Percent = Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Cashback percent of the spend, over 0 up to 100, at most 2 decimals' });
const MinSpend = Type.Number({ minimum: 0, maximum: AMOUNT_MAJOR_MAX, description: 'Smallest spend (major units) the rule rewards; 0 rewards every spend' });

export const CreateRewardRuleBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
  minSpend: MinSpend,
  percent: Percent,
  maxReward: Type.Optional(MajorAmount),
  currency: GiftCardCurrency,
});

export const UpdateRewardRuleBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  minSpend: Type.Optional(MinSpend),
  percent: Type.Optional(Percent),
  maxReward: Type.Optional(Nullable(MajorAmount)),
  currency: Type.Optional(GiftCardCurrency),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
  archived: Type.Optional(Type.Boolean()),
});

export const RewardRuleRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  minSpend: Type.Number(),
  percent: Type.Number(),
  maxReward: Nullable(Type.Number()),
  currency: Type.String(),
  status: Type.String({ description: 'active or archived' }),
  archived: Type.Boolean(),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const RewardRuleListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
});

export const EvaluateRewardBody = Type.Object({
  customerHandle: HandleInput,
  spendAmount: MajorAmount,
  currency: CurrencyCode,
});

export const EvaluateRewardResponse = Type.Object({
  rewarded: Type.Boolean(),
  reward: Type.Number({ description: 'Cashback in major units (0 when no rule matched)' }),
  currency: Type.String(),
  rule: Nullable(RewardRuleRecord),
  card: Nullable(GiftCardIssued),
});

// Subscription plans (subscriptions themselves: subscriptions.ts) ----------------------------

export const CreateSubscriptionPlanBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
  price: { ...MajorAmount, description: 'Price per month, major units' },
  currency: GiftCardCurrency,
  interval: Type.Optional(Type.Literal('month')),
});

export const UpdateSubscriptionPlanBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  active: Type.Optional(Type.Boolean({ description: 'false retires the plan: no new subscriptions or gifts; running subscriptions keep renewing' })),
});

export const SubscriptionPlanRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: Type.Number(),
  currency: Type.String(),
  interval: Type.String(),
  active: Type.Boolean(),
  mode: Mode,
  createdAt: Timestamp,
});
