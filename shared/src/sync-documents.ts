import { type Static, type TSchema, Type } from 'typebox';
import { GIFT_CARD_DESIGN_THEMES, GIFT_CARD_LIMITS } from './gift-card-rules.ts';

/**
 * One schema per replicated document (TypeBox): the TypeScript type of the document
 * (sync-protocol.ts) and the kiosk's RxDB schema (rxJsonSchema below, terminal/src/renderer/lib/replica.ts)
 * come from it, and a compiled check of it (typebox/compile) accepts exactly what that schema allows.
 *
 * The lengths here are the replica's storage limits (RxDB needs a maxLength on every indexed or
 * primary string). The server's rules for text it stores are tighter (SYNC_TEXT_LIMITS) and
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

const IsoTime = () => Type.String({ maxLength: 40 });
const Text = () => Type.String({ maxLength: 1000 });

/** The fields every replicated document has: made by the terminal, settled by the server. */
const made = {
  /** UUID v4 made by the terminal before it stores the document: the idempotency key. */
  id: Type.String({ maxLength: 36 }),
  terminalId: Type.String({ maxLength: 64 }),
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
  tagId: Type.Optional(Type.String({ maxLength: 64 })),
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
  ...verdict,
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
  cardId: Type.Optional(Type.String({ maxLength: 64 })),
  expiresAt: Type.Optional(IsoTime()),
  ...verdict,
});
export type GiftCardSaleDoc = Static<typeof GiftCardSaleDocument>;

/** The schema of each replicated collection's documents. */
export const SYNC_DOCUMENT_SCHEMAS = {
  offline_payments: OfflinePaymentDocument,
  gift_card_sales: GiftCardSaleDocument,
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
