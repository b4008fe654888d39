import { SaleLineRecord, SaleTotals } from './pos.ts';
import { type Static, Type } from 'typebox';
import { CurrencyCode, ListQuery, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { TerminalLanguage } from './merchant.ts';
import { AMOUNT_MAJOR_MAX, DESCRIPTION_LENGTH_MAX, LOOKUP_ID_LENGTH_MAX, OFFLINE_PAYMENT_AGE_HOURS_MAX, OFFLINE_QR_VOUCHER_HOURS_DEFAULT, OFFLINE_QR_VOUCHER_HOURS_MAX, OFFLINE_QR_VOUCHER_LENGTH_MAX } from '../limits.ts';

export const VOUCHER_STATUSES = ['active', 'used', 'revoked', 'expired'] as const;
export const VoucherStatus = literalUnion(VOUCHER_STATUSES);

export const CreateVoucherBody = Type.Object({
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
  expiresInHours: Type.Optional(Type.Integer({ minimum: 1, maximum: OFFLINE_QR_VOUCHER_HOURS_MAX, default: OFFLINE_QR_VOUCHER_HOURS_DEFAULT, description: '1 to 72 hours, default 24' })),
});
export type CreateVoucherBody = Static<typeof CreateVoucherBody>;

export const VoucherRecord = Type.Object({
  id: Type.String({ description: 'oqr_...' }),
  handle: Type.String(),
  mode: Mode,
  status: VoucherStatus,
  amount: Type.Number({ description: 'The reserved amount, major units: the most the voucher pays' }),
  currency: Type.String(),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  endedAt: Type.Optional(Timestamp),
  usedAmount: Type.Optional(Type.Number()),
  usedByPaymentId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  qrPayload: Type.Optional(Type.String({ description: 'The text to show as a QR code (TLQ1....); present while the voucher is active, to its holder only' })),
});

export const VoucherListQuery = Type.Object({ ...ListQuery.properties, status: Type.Optional(VoucherStatus) });

export const OfflineQrKeysResponse = Type.Object({
  keys: Type.Array(Type.Object({ keyId: Type.String(), algorithm: Type.Literal('Ed25519'), publicKey: Type.String({ description: 'Raw 32-byte public key, base64url' }) })),
});

export const RedeemVoucherBody = Type.Object({
  voucher: Type.String({ minLength: 1, maxLength: OFFLINE_QR_VOUCHER_LENGTH_MAX, description: 'The scanned QR text (TLQ1....)' }),
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  paymentId: Type.Optional(Type.String({ format: 'uuid', description: 'Your id for this payment (UUID); a retry with the same id answers the same payment' })),
});
export type RedeemVoucherBody = Static<typeof RedeemVoucherBody>;

export const OFFLINE_PAYMENT_STATUSES_SETTLED = ['accepted', 'declined'] as const;

export const OfflinePaymentRecord = Type.Object({
  id: Type.String({ format: 'uuid' }),
  terminalId: Type.Union([Type.String(), Type.Null()]),
  kind: literalUnion(['tap', 'qr'] as const),
  status: literalUnion(OFFLINE_PAYMENT_STATUSES_SETTLED),
  amount: Type.Number(),
  currency: Type.String(),
  description: Type.String(),
  tagId: Type.Union([Type.String(), Type.Null()]),
  voucherId: Type.Union([Type.String(), Type.Null()]),
  payerHandle: Type.Union([Type.String(), Type.Null()]),
  walletRef: Type.Union([Type.String(), Type.Null()]),
  declineCode: Type.Union([Type.String(), Type.Null()]),
  declineReason: Type.Union([Type.String(), Type.Null()]),
  capturedAt: Timestamp,
  receivedAt: Timestamp,
  settledAt: Timestamp,
  cashierId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The till staff member signed in when it was taken, when the kiosk said' })),
  tenderOf: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'A tap taken offline for part of a split sale: the till sale it pays part of (its offline_tap tender)' })),
  items: Type.Optional(Type.Array(SaleLineRecord, { description: 'The lines sold, when the terminal sent them' })),
  cartDiscount: Type.Optional(Type.Number({ description: 'The cart discount, major units' })),
  totals: Type.Optional(SaleTotals),
});
export type OfflinePaymentRecord = Static<typeof OfflinePaymentRecord>;

export const OfflinePaymentListQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(literalUnion(OFFLINE_PAYMENT_STATUSES_SETTLED)),
  terminalId: Type.Optional(Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX })),
});

/** Tips at the till: asked before the payment, after it, or not at all, with up to three suggested percentages. */
export const TippingSettings = Type.Object({
  mode: Type.Union([Type.Literal('off'), Type.Literal('before'), Type.Literal('after')], { description: 'before: the customer picks a tip before paying; after: on the outcome, paid as a tender of its own; off: never asked' }),
  percentages: Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Suggested tips in percent of the sale (the customer may also choose another amount or none)' }),
});
export type TippingSettings = Static<typeof TippingSettings>;

export const OfflineLimitsBody = Type.Object({
  offlineLimits: Type.Optional(Type.Object({
    perPayment: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: AMOUNT_MAJOR_MAX }), Type.Null()], { description: 'Largest single offline payment, major units of the merchant currency; 0 turns offline payments off; null: the default' })),
    total: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: AMOUNT_MAJOR_MAX }), Type.Null()], { description: 'Most the terminal may hold unsettled; null: the default' })),
    maxAgeHours: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: OFFLINE_PAYMENT_AGE_HOURS_MAX }), Type.Null()], { description: 'A queued offline payment older than this stops further offline payments until the terminal syncs; null: the default' })),
  })),
  language: Type.Optional(TerminalLanguage),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 80, pattern: '\\S', description: 'The terminal\'s name (trimmed; not blank)' })),
  tipping: Type.Optional(TippingSettings),
}, { description: 'PATCH /api/merchant/terminals/<id>: offlineLimits, language, name, tipping, or any of them (at least one)' });
export type OfflineLimitsBody = Static<typeof OfflineLimitsBody>;

export const OfflineLimitsRecord = Type.Object({
  terminalId: Type.String(),
  currency: Type.String(),
  perPayment: Type.Number(),
  total: Type.Number(),
  maxAgeHours: Type.Number(),
});

/** PATCH /api/merchant/terminals/<id>: the terminal's offline limits, its language and its name. */
export const TerminalSettingsRecord = Type.Object({
  ...OfflineLimitsRecord.properties,
  language: TerminalLanguage,
  name: Type.String(),
  tipping: TippingSettings,
});
