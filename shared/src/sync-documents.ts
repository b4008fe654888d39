import { type Static, type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { GIFT_CARD_DESIGN_THEMES } from './gift-card-rules.ts';
import type { SaleLine } from './cart.ts';
import { CART_LINE_NAME_LENGTH_MAX, CART_LINE_QUANTITY_MAX, CART_LINES_MAX, DATE_TEXT_LENGTH_MAX, GIFT_CARD_LIMITS, ID_LENGTH_MAX, SHIFT_REASON_LENGTH_MAX, TAX_RATE_BPS_MAX, TILL_STAFF_NAME_LENGTH_MAX, TILL_TENDERS_MAX } from './limits.ts';

/**
 * One schema per replicated document (TypeBox): the TypeScript type of the document
 * (sync-protocol.ts) and the kiosk's RxDB schema (rxJsonSchema below, terminal/src/renderer/lib/replica.ts)
 * come from it, and a compiled check of it (typebox/compile) accepts exactly what that schema allows.
 *
 * The lengths here are the replica's storage limits (RxDB needs a maxLength on every indexed or
 * primary string). The server's rules for text it stores are tighter (the API's, limits.ts) and
 * decline a document with a precise reason (modules/offline); a document outside this schema is
 * one no terminal of this version makes.
 *
 * Written in the order RxDB's stored schema lists `required`: RxDB hashes the schema it stores,
 * and a replica made by an earlier kiosk must open unchanged (test: replica-schemas.test.ts).
 */

export const OFFLINE_PAYMENT_KINDS = ['tap', 'qr'] as const;
export type OfflinePaymentKind = (typeof OFFLINE_PAYMENT_KINDS)[number];

/** queued: taken by the terminal, not yet settled. accepted / declined: the server's verdict. */
export const OFFLINE_PAYMENT_STATUSES = ['queued', 'accepted', 'declined'] as const;
export type OfflinePaymentStatus = (typeof OFFLINE_PAYMENT_STATUSES)[number];

/** A string that is one of `values` (a JSON-schema enum, as RxDB reads it). */
function oneOf<const Values extends readonly string[]>(values: Values, maxLength: number) {
  return Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], maxLength });
}

const IsoTime = () => Type.String({ maxLength: DATE_TEXT_LENGTH_MAX });
const Text = () => Type.String({ maxLength: 1000 });

/** The fields every replicated document has: made by the terminal, settled by the server. */
const made = {
  /** UUID v4 made by the terminal before it stores the document: the idempotency key. */
  id: Type.String({ maxLength: 36 }),
  terminalId: Type.String({ maxLength: ID_LENGTH_MAX }),
};
const settled = {
  /** When the terminal took the payment or made the sale (its clock, ISO 8601). */
  capturedAt: IsoTime(),
  status: oneOf(OFFLINE_PAYMENT_STATUSES, 8),
  /**
   * The server's order of changes to this terminal's documents (0 until the server has it).
   * Pull checkpoints count in it.
   */
  serverSeq: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 }),
};
const verdict = {
  /** A declined document: the rule that failed (insufficient_funds, tag_disabled, ...). */
  declineCode: Type.Optional(Type.String({ maxLength: 64 })),
  declineReason: Type.Optional(Text()),
  settledAt: Type.Optional(IsoTime()),
};
/** Integer minor units of `currency`. */
const AmountMinor = () => Type.Integer({ minimum: 1 });
const Currency = () => Type.String({ maxLength: 3 });

/** A string or null (a JSON-schema type list, as RxDB reads it; TypeBox's union would be `anyOf`). */
function nullableText(maxLength: number) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength });
}

/** One line of a sale (cart.ts's SaleLine): minor units, the tax rate in basis points. */
const SaleLineDocument = Type.Unsafe<SaleLine>(
  Type.Object({
    productId: nullableText(ID_LENGTH_MAX),
    name: Type.String({ maxLength: CART_LINE_NAME_LENGTH_MAX }),
    quantity: Type.Integer({ minimum: 1, maximum: CART_LINE_QUANTITY_MAX }),
    unitPrice: Type.Integer({ minimum: 0 }),
    discount: Type.Integer({ minimum: 0 }),
    taxRate: Type.Integer({ minimum: 0, maximum: TAX_RATE_BPS_MAX }),
    taxInclusive: Type.Boolean(),
  }),
);

/**
 * A sale's lines and its cart discount, when the sale was made from a cart. The server declines a
 * document whose lines do not add up to `amountMinor` (declineCode `items_total_mismatch` or another
 * CartError code); it never declines one for stock.
 */
const cartFields = {
  items: Type.Optional(Type.Array(SaleLineDocument, { maxItems: CART_LINES_MAX })),
  /** The cart discount in minor units (shared between the lines by cartTotals); 0 when absent. */
  discountMinor: Type.Optional(Type.Integer({ minimum: 0 })),
};

/**
 * A payment the terminal took without the sync server: a wearable tap (the tag's id) or an
 * offline QR voucher (the scanned payload, see offline-qr.ts).
 */
export const OfflinePaymentDocument = Type.Object({
  ...made,
  kind: oneOf(OFFLINE_PAYMENT_KINDS, 3),
  amountMinor: AmountMinor(),
  currency: Currency(),
  description: Text(),
  capturedAt: settled.capturedAt,
  status: settled.status,
  serverSeq: settled.serverSeq,
  /** kind `tap`: the tag read at the reader (TG + 8 hex). */
  tagId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  /**
   * kind `qr`: the voucher payload as scanned (TLQ1....). The server keeps only its hash, so the
   * master state it answers does not carry it; voucherId stays.
   */
  voucher: Type.Optional(Type.String({ maxLength: 2000 })),
  /** kind `qr`: the voucher's id (its claims' `id`), so a voucher pays once per terminal even offline. */
  voucherId: Type.Optional(Type.String({ maxLength: 80 })),
  /** Set by the server with a verdict. */
  payerHandle: Type.Optional(Type.String({ maxLength: 64 })),
  /** The ledger transfer of an accepted payment. */
  walletRef: Type.Optional(Type.String({ maxLength: 128 })),
  /** The till staff member signed in when it was taken (docs/till.md): the day report counts it for them. */
  cashierId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  /**
   * A tap taken offline for part of a split sale (docs/till.md): the till sale's id, whose
   * `offline_tap` tender names this payment. Such a tap is given back without a manager PIN while
   * no till sale claims it, and a day report counts it for its cashier with the till sale.
   */
  tenderOf: Type.Optional(Type.String({ maxLength: 36 })),
  ...verdict,
  ...cartFields,
});
export type OfflinePaymentDoc = Static<typeof OfflinePaymentDocument>;

/**
 * A gift card sold at the till (paid at the till, funded from the merchant's wallet). The terminal
 * makes the card's code itself (`gc_` + 64 hex from 32 random bytes, see gift-card-code.ts),
 * prints it for the customer and keeps only its SHA-256 here: the code never enters the replica
 * or the network. The card works once the sale is accepted (when the terminal syncs).
 */
export const GiftCardSaleDocument = Type.Object({
  ...made,
  /** SHA-256 (lower-case hex) of the code printed for the customer. */
  codeHash: Type.String({ maxLength: 64 }),
  /** The code's first 10 characters, printed and shown to staff to tell cards apart. */
  codePrefix: Type.String({ maxLength: 10 }),
  amountMinor: AmountMinor(),
  /** A gift-card currency: USD, GHS, NGN, KES, ZAR, EUR, GBP. */
  currency: Currency(),
  capturedAt: settled.capturedAt,
  status: settled.status,
  serverSeq: settled.serverSeq,
  designTheme: Type.Optional(oneOf(GIFT_CARD_DESIGN_THEMES, 16)),
  message: Type.Optional(Type.String({ maxLength: GIFT_CARD_LIMITS.messageLengthMax })),
  /** Set by the server when accepted: the card's id and expiry. */
  cardId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  expiresAt: Type.Optional(IsoTime()),
  ...verdict,
});
export type GiftCardSaleDoc = Static<typeof GiftCardSaleDocument>;

export const TILL_TENDER_KINDS = ['cash', 'wallet', 'gift_card', 'mobile_money', 'offline_tap'] as const;
/**
 * How part of a till sale was paid: notes and coins, a Tapline wallet tap (online), a gift card, a
 * mobile-money collection, or a tap taken while the server could not be reached (`offline_tap`).
 */
export type TillTenderKind = (typeof TILL_TENDER_KINDS)[number];

/**
 * One tender of a till sale. `amountMinor` is what it paid towards the sale (and tip). Cash also
 * records what the customer handed over and the change given back (tendered - amount, the change
 * comes from the drawer). The other kinds name the server record that moved the money:
 * `reference` is the POS session (wallet), the redemption (gift card), the collection (mobile money)
 * or the offline payment (offline_tap: a tap the kiosk recorded offline in offline_payments, which
 * the server settles on its own and may decline; the sale is recorded all the same, with
 * `unpaidMinor`).
 */
const TillTenderDocument = Type.Object({
  kind: oneOf(TILL_TENDER_KINDS, 16),
  amountMinor: AmountMinor(),
  tenderedMinor: Type.Optional(Type.Integer({ minimum: 1 })),
  changeMinor: Type.Optional(Type.Integer({ minimum: 0 })),
  reference: Type.Optional(Type.String({ maxLength: 80 })),
});
export type TillTender = Static<typeof TillTenderDocument>;

/**
 * A sale completed at the till (collection `till_sales`, pushed): its lines, what it cost, and the
 * tenders that paid it, with who sold it and in which shift. Written when the sale completes, online
 * or offline alike, and settled once when it syncs: the server records it, moves the stock of its
 * products and checks that its tenders add up (cash moves no wallet money; a wallet tender must name
 * a completed payment of this terminal that no other sale claims).
 */
export const TillSaleDocument = Type.Object({
  ...made,
  /** The sale's total (lines after discounts, tax included), without the tip. */
  amountMinor: AmountMinor(),
  currency: Currency(),
  capturedAt: settled.capturedAt,
  status: settled.status,
  serverSeq: settled.serverSeq,
  tenders: Type.Array(TillTenderDocument, { minItems: 1, maxItems: TILL_TENDERS_MAX }),
  /** A tip on top of the sale (minor units), paid by the tenders too; apart from sales and tax. */
  tipMinor: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The staff member signed in at the till (till staff id) and their shift. */
  cashierId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  shiftId: Type.Optional(Type.String({ maxLength: 36 })),
  description: Type.Optional(Text()),
  /**
   * Set by the server: what the tenders did not pay because it declined them at sync (an
   * offline_tap whose offline payment was declined), the merchant's shortfall. Absent: 0.
   */
  unpaidMinor: Type.Optional(Type.Integer({ minimum: 0 })),
  ...verdict,
  ...cartFields,
});
export type TillSaleDoc = Static<typeof TillSaleDocument>;

export const SHIFT_EVENT_KINDS = ['open', 'paid_in', 'paid_out', 'no_sale', 'close'] as const;
/**
 * What happened in a cashier's shift at the till: `open` (the float counted into the drawer),
 * `paid_in` / `paid_out` (cash put in or taken out, with a reason), `no_sale` (the drawer opened
 * without a sale, a manager's approval), `close` (the blind count).
 */
export type ShiftEventKind = (typeof SHIFT_EVENT_KINDS)[number];

/**
 * One event of a shift (collection `shift_events`, pushed). The kiosk writes it when it happens,
 * online or offline alike; the server records the events of a shift in the order they happened
 * and keeps the shift they make (float, paid in and out, drawer openings, the count and its
 * variance). Amounts in minor units of `currency`.
 */
export const ShiftEventDocument = Type.Object({
  ...made,
  /** The shift's id (UUID made by the kiosk when the shift opens): every event of it carries it. */
  shiftId: Type.String({ maxLength: 36 }),
  kind: oneOf(SHIFT_EVENT_KINDS, 16),
  /** The staff member signed in (till staff id). */
  cashierId: Type.String({ maxLength: ID_LENGTH_MAX }),
  /** open: the float; paid_in / paid_out: the amount; close: the cash counted; no_sale: 0. */
  amountMinor: Type.Integer({ minimum: 0 }),
  currency: Currency(),
  capturedAt: settled.capturedAt,
  status: settled.status,
  serverSeq: settled.serverSeq,
  /** paid_in / paid_out / no_sale: why (required for those). */
  reason: Type.Optional(Type.String({ maxLength: SHIFT_REASON_LENGTH_MAX })),
  /** no_sale: the manager (till staff id) whose PIN approved it. */
  approvedBy: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX })),
  /** close: what the till expected in the drawer (float + cash sales - cash refunds + paid in - paid out), not shown to the cashier before the count. */
  expectedMinor: Type.Optional(Type.Integer()),
  ...verdict,
});
export type ShiftEventDoc = Static<typeof ShiftEventDocument>;

export const TILL_STAFF_ROLES = ['cashier', 'manager'] as const;
export type TillStaffRole = (typeof TILL_STAFF_ROLES)[number];

/**
 * A member of the merchant's till staff as the kiosk's replica holds it (collection `till_staff`,
 * pull only). `pinVerifier` lets a till check the staff member's PIN while offline: PBKDF2-SHA256
 * (`pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`), never the PIN itself.
 */
export const TillStaffDocument = Type.Object({
  /** `staff_…` */
  id: Type.String({ maxLength: ID_LENGTH_MAX }),
  name: Type.String({ maxLength: TILL_STAFF_NAME_LENGTH_MAX }),
  role: oneOf(TILL_STAFF_ROLES, 16),
  active: Type.Boolean(),
  pinVerifier: Type.String({ maxLength: 200 }),
  updatedAt: IsoTime(),
  /** The server's order of changes to the merchant's staff: the pull checkpoint. */
  serverSeq: Type.Optional(settled.serverSeq),
});
/** A staff member as replicated: `_deleted: true` once removed. */
export type TillStaffDoc = Required<Static<typeof TillStaffDocument>> & { _deleted: boolean };

/**
 * A product of the merchant's catalogue as the kiosk's replica holds it (pull only: the server is
 * its only author). Amounts in minor units, the tax rate in basis points. The fields the replica
 * does not require are optional here too (RxDB stores the `required` list and hashes it), but the
 * server always sends them.
 */
export const ProductDocument = Type.Object({
  /** `prod_…` */
  id: Type.String({ maxLength: ID_LENGTH_MAX }),
  name: Type.String({ maxLength: 200 }),
  /** One unit's price, integer minor units of `currency` (tax included when taxInclusive). */
  priceMinor: Type.Integer({ minimum: 0 }),
  currency: Currency(),
  /** Basis points (750 = 7.5 %). */
  taxRate: Type.Integer({ minimum: 0, maximum: TAX_RATE_BPS_MAX }),
  taxInclusive: Type.Boolean(),
  trackStock: Type.Boolean(),
  active: Type.Boolean(),
  updatedAt: IsoTime(),
  sku: Type.Optional(nullableText(64)),
  barcode: Type.Optional(nullableText(64)),
  category: Type.Optional(nullableText(80)),
  imageUrl: Type.Optional(nullableText(2000)),
  /** Units in stock when trackStock (negative: oversold by offline sales); null otherwise. */
  stock: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'] })),
  /** The server's order of changes to the merchant's products in this mode: the pull checkpoint. */
  serverSeq: Type.Optional(settled.serverSeq),
});
/**
 * A product as replicated: the server sends every field, and `_deleted: true` when the merchant
 * archived it (RxDB's own field, not in the schema); a deactivated one stays with `active: false`.
 */
export type ProductDoc = Required<Static<typeof ProductDocument>> & { _deleted: boolean };

/** The schema of each replicated collection's documents. */
export const SYNC_DOCUMENT_SCHEMAS = {
  offline_payments: OfflinePaymentDocument,
  gift_card_sales: GiftCardSaleDocument,
  till_sales: TillSaleDocument,
  shift_events: ShiftEventDocument,
  products: ProductDocument,
  till_staff: TillStaffDocument,
} as const;

export interface RxSchemaOptions {
  title: string;
  version: number;
  primaryKey: string;
  indexes?: string[];
}

/**
 * The RxDB JSON schema of a document schema: the same properties and required fields as plain JSON
 * (no TypeBox markers, no descriptions, which would change the hash RxDB stores), plus what RxDB
 * adds (title, version, primary key, indexes). The result is `RxJsonSchema<Static<T>>`-shaped; the
 * kiosk types it (shared does not depend on RxDB).
 */
export function rxJsonSchema<T extends TSchema>(schema: T, options: RxSchemaOptions): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === 'description' && typeof value === 'string' ? undefined : value)) as { properties: object; required?: string[] };
  return {
    title: options.title,
    version: options.version,
    primaryKey: options.primaryKey,
    type: 'object',
    properties: plain.properties,
    required: plain.required ?? [],
    ...(options.indexes ? { indexes: options.indexes } : {}),
  };
}

/**
 * The fields a terminal writes in a document it pushes (the server sets the others: status,
 * serverSeq, the verdict). Each is checked against its schema above when present; whether it
 * must be present, and the rules beyond types and bounds (a supported currency, a tag id's
 * pattern, a cart that adds up), are the server's (modules/offline), with precise reasons.
 */
const PUSHED_FIELDS = {
  offline_payments: ['kind', 'amountMinor', 'currency', 'description', 'capturedAt', 'tagId', 'voucher', 'items', 'discountMinor', 'cashierId'],
  gift_card_sales: ['codeHash', 'codePrefix', 'amountMinor', 'currency', 'designTheme', 'message', 'capturedAt'],
  till_sales: ['amountMinor', 'currency', 'capturedAt', 'tenders', 'tipMinor', 'cashierId', 'shiftId', 'description', 'items', 'discountMinor'],
  shift_events: ['shiftId', 'kind', 'cashierId', 'amountMinor', 'currency', 'capturedAt', 'reason', 'approvedBy', 'expectedMinor'],
} as const;
export type PushedCollection = keyof typeof PUSHED_FIELDS;

const pushedChecks = {
  offline_payments: Compile(Type.Partial(Type.Pick(OfflinePaymentDocument, [...PUSHED_FIELDS.offline_payments]))),
  gift_card_sales: Compile(Type.Partial(Type.Pick(GiftCardSaleDocument, [...PUSHED_FIELDS.gift_card_sales]))),
  till_sales: Compile(Type.Partial(Type.Pick(TillSaleDocument, [...PUSHED_FIELDS.till_sales]))),
  shift_events: Compile(Type.Partial(Type.Pick(ShiftEventDocument, [...PUSHED_FIELDS.shift_events]))),
};

/**
 * What the document schema says is wrong with a pushed document, one sentence per top-level field
 * (`items.0.taxInclusive must be boolean`), keyed by that field. A field sent as null counts as
 * absent. The server's validation of pushes starts from these (derived, never written twice).
 */
export function pushedDocumentProblems(collection: PushedCollection, doc: Record<string, unknown>): Map<string, string> {
  const present = Object.fromEntries(Object.entries(doc).filter(([key, value]) => value !== null && (PUSHED_FIELDS[collection] as readonly string[]).includes(key)));
  const problems = new Map<string, string>();
  for (const error of pushedChecks[collection].Errors(present)) {
    const path = error.instancePath.split('/').slice(1);
    const field = path[0];
    if (field === undefined || problems.has(field)) continue;
    problems.set(field, `${path.join('.')} ${error.message}`);
  }
  return problems;
}
