import { type Static, Type } from 'typebox';
import { CurrencyCode, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { TagIdInput } from './wearables.ts';
import { CART_LINE_NAME_LENGTH_MAX, CART_LINE_QUANTITY_MAX, CART_LINES_MAX, DESCRIPTION_LENGTH_MAX, ID_LENGTH_MAX, LOOKUP_ID_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, TAX_RATE_PERCENT_MAX, URL_LENGTH_MAX } from '../limits.ts';

/** Spec, "POS session status". tapped and processing exist only inside the tap's transaction. */
export const POS_SESSION_STATUSES = ['pending', 'tapped', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type PosSessionStatus = (typeof POS_SESSION_STATUSES)[number];
export const PosSessionStatus = literalUnion(POS_SESSION_STATUSES);

/** A line of a sale as the API takes it (docs/catalogue.md): major units, tax in percent. */
export const SaleItemInput = Type.Object({
  productId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'The catalogue product; none for a custom-amount line' })),
  name: Type.String({ minLength: 1, maxLength: CART_LINE_NAME_LENGTH_MAX }),
  quantity: Type.Integer({ minimum: 1, maximum: CART_LINE_QUANTITY_MAX }),
  unitPrice: Type.Number({ minimum: 0, description: 'One unit, major units (tax included when taxInclusive)' }),
  discount: Type.Optional(Type.Number({ minimum: 0, description: 'The line\'s discount for the whole line, major units' })),
  taxRate: Type.Optional(Type.Number({ minimum: 0, maximum: TAX_RATE_PERCENT_MAX, description: 'Percent, at most two decimals; default 0' })),
  taxInclusive: Type.Optional(Type.Boolean({ description: 'Default true' })),
});

/** A stored line as the API answers it: the discounts, net, tax and total computed by shared/src/cart.ts. */
export const SaleLineRecord = Type.Object({
  line: Type.Integer({ description: '0-based index: what a refund names' }),
  productId: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  quantity: Type.Integer(),
  unitPrice: Type.Number(),
  discount: Type.Number({ description: 'All taken off the line: its own discount and its share of the cart discount' }),
  taxRate: Type.Number({ description: 'Percent' }),
  taxInclusive: Type.Boolean(),
  net: Type.Number({ description: 'Before tax, after discounts' }),
  tax: Type.Number(),
  total: Type.Number({ description: 'What the customer paid for the line' }),
});

export const SaleTotals = Type.Object({ subtotal: Type.Number(), discount: Type.Number(), tax: Type.Number(), total: Type.Number() });

export const CreatePosSessionBody = Type.Object({
  amount: MajorAmount,
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  callbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: URL_LENGTH_MAX, description: 'Receives pos.session.completed or pos.session.failed, signed sha256=<hex>' })),
  items: Type.Optional(Type.Array(SaleItemInput, {
    minItems: 1,
    maxItems: CART_LINES_MAX,
    description: 'The lines sold: they must add up to amount (400 items_total_mismatch); tracked products must have the units (409 out_of_stock)',
  })),
  discount: Type.Optional(Type.Number({ minimum: 0, description: 'A discount on the whole cart, major units, shared between the lines' })),
  tenderOf: Type.Optional(Type.String({
    format: 'uuid',
    description:
      'A terminal paying part of a till sale (split tender): the kiosk\'s id of that sale. Such a session carries no items (the till sale has ' +
      'the lines), is claimed by that till sale when it syncs, and can be returned to its payer without a manager PIN while no till sale ' +
      'claims it (POST /api/pos/sessions/{sessionId}/return)',
  })),
  cashierId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'The till staff member who charged it (recorded; the day report counts it per cashier)' })),
});
export type CreatePosSessionBody = Static<typeof CreatePosSessionBody>;

export const PosTapBody = Type.Object({
  tagId: TagIdInput,
  pin: Type.Optional(Type.String({
    pattern: '^[0-9]{4,8}$',
    description:
      'The tag holder\'s wallet PIN, for a tap above the tag\'s no-PIN limits (after 403 pin_required); checked with the wallet\'s lock-out ' +
      '(403 wrong_pin, 429 pin_attempts_exceeded). Never stored, nor part of the Idempotency-Key\'s request hash',
  })),
});
export type PosTapBody = Static<typeof PosTapBody>;

export const PosSessionRecord = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  status: PosSessionStatus,
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  description: Type.String(),
  callbackUrl: Type.Optional(Type.String()),
  tapUrl: Type.String({ description: '{base_url}/tap/<sessionId>: opens the page where the customer pays this session with @handle and PIN' }),
  qrPayload: Type.String({ description: 'The string to show as a QR code: the same URL as tapUrl' }),
  ttlSeconds: Type.Integer({ description: 'Always 90' }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  merchantId: Type.String(),
  mode: Mode,
  terminalId: Type.Optional(Type.String({ description: 'The terminal that opened the session; absent when a merchant key did' })),
  payerHandle: Type.Optional(Type.String({ description: 'Present when completed (and on a failed settlement)' })),
  walletRef: Type.Optional(Type.String({ description: 'The wallet transfer reference, present when completed' })),
  tagId: Type.Optional(Type.String()),
  completedAt: Type.Optional(Timestamp),
  endedAt: Type.Optional(Timestamp),
  errorMessage: Type.Optional(Type.String({ description: 'Present when the session ended failed, expired or cancelled' })),
  items: Type.Optional(Type.Array(SaleLineRecord, { description: 'The lines sold, for a session created with items' })),
  cartDiscount: Type.Optional(Type.Number({ description: 'The cart discount as sent, major units' })),
  totals: Type.Optional(SaleTotals),
  tenderOf: Type.Optional(Type.String({ description: 'The till sale this session pays part of, when it was opened as a split tender' })),
  cashierId: Type.Optional(Type.String({ description: 'The till staff member who charged it, when the kiosk sent one' })),
});
export type PosSessionRecord = Static<typeof PosSessionRecord>;

export const PosSessionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(PosSessionStatus),
  terminalId: Type.Optional(Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX, description: 'Only the sessions this terminal opened' })),
});

/** GET /api/pos/context: who the /pos page is signed in as. */
export const PosContextResponse = Type.Object({
  merchant: Type.Object({ id: Type.String(), name: Type.String(), handle: Type.String(), country: Type.String(), currency: Type.String() }),
  mode: Mode,
  terminal: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
});
