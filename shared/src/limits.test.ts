// The product limits agree with one another: each case names the rule that ties two or more of
// them (limits.ts). A change to one limit that breaks a rule fails here, not at a till.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AMOUNT_INTEGER_DIGITS_MAX,
  AMOUNT_MAJOR_MAX,
  CART_LINE_NAME_LENGTH_MAX,
  DESCRIPTION_LENGTH_MAX,
  GIFT_CARD_LIMITS,
  ID_LENGTH_MAX,
  LOOKUP_ID_LENGTH_MAX,
  MANAGER_PIN_ATTEMPTS_MAX,
  MANAGER_PIN_LOCK_MINUTES,
  NO_PIN_PER_DAY_USD_DEFAULT,
  NO_PIN_PER_TAP_USD_DEFAULT,
  OFFLINE_PAYMENT_AGE_HOURS_DEFAULT,
  OFFLINE_PAYMENT_AGE_HOURS_MAX,
  OFFLINE_PER_PAYMENT_USD_DEFAULT,
  OFFLINE_QR_VOUCHER_HOURS_DEFAULT,
  OFFLINE_QR_VOUCHER_HOURS_MAX,
  OFFLINE_QR_VOUCHER_LENGTH_MAX,
  OFFLINE_TOTAL_USD_DEFAULT,
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  PHONE_LENGTH_MAX,
  PHONE_TYPED_LENGTH_MAX,
  PRODUCT_NAME_LENGTH_MAX,
  SIGN_IN_ATTEMPTS_MAX,
  SIGN_IN_LOCK_MINUTES,
  SYNC_MESSAGE_BURST_MAX,
  SYNC_MESSAGE_BYTES_MAX,
  SYNC_MESSAGES_PER_SECOND_MAX,
  SYNC_PUSH_BATCH_SIZE_MAX,
  TAX_RATE_BPS_MAX,
  TAX_RATE_PERCENT_MAX,
  WALLET_PIN_ATTEMPTS_MAX,
  WALLET_PIN_LOCK_MINUTES,
} from './limits.ts';
import { GiftCardSaleDocument, OfflinePaymentDocument, ShiftEventDocument, TillSaleDocument } from './sync-documents.ts';

/**
 * The most bytes a JSON text the schema allows can take: every string at its maxLength, each code
 * unit 3 bytes of UTF-8 (any character of the Basic Multilingual Plane; a pair of surrogates, 2
 * code units, is 4) but 1 in the properties named `ascii` (a voucher is `TLQ1.` and base64url),
 * every number as long as a safe integer can be written. Throws on a schema with no bound.
 */
const BYTES_PER_CODE_UNIT = 3;
const NUMBER_BYTES = String(-Number.MAX_SAFE_INTEGER).length;
function jsonBytesMax(schema: Record<string, unknown>, ascii: ReadonlySet<string> = new Set(), name = ''): number {
  if (Array.isArray(schema.anyOf)) return Math.max(...schema.anyOf.map((option) => jsonBytesMax(option, ascii, name)));
  if (Array.isArray(schema.enum)) return Math.max(...schema.enum.map((value) => JSON.stringify(value).length));
  if (Array.isArray(schema.type)) return Math.max(...schema.type.map((type) => jsonBytesMax({ ...schema, type }, ascii, name)));
  switch (schema.type) {
    case 'object':
      return Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)
        .reduce((bytes, [key, value]) => bytes + JSON.stringify(key).length + 1 + jsonBytesMax(value, ascii, key) + 1, 2);
    case 'array':
      assert.equal(typeof schema.maxItems, 'number', 'an array without maxItems has no largest size');
      return 2 + (schema.maxItems as number) * (jsonBytesMax(schema.items as Record<string, unknown>, ascii) + 1);
    case 'string':
      assert.equal(typeof schema.maxLength, 'number', 'a string without maxLength has no largest size');
      return 2 + (schema.maxLength as number) * (ascii.has(name) ? 1 : BYTES_PER_CODE_UNIT);
    case 'integer':
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
      return 'false'.length;
    case 'null':
      return 'null'.length;
    default:
      throw new Error(`no size for ${JSON.stringify(schema)}`);
  }
}

/** The schema without the named properties (a document sent without its cart). */
function without(schema: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  const properties = { ...(schema.properties as Record<string, unknown>) };
  for (const name of names) delete properties[name];
  return { ...schema, properties };
}

/** A push message: the collection, the documents and a checkpoint, with room to spare for the envelope. */
const ENVELOPE_BYTES = 1_000;
const pushBytesMax = (document: Record<string, unknown>) => ENVELOPE_BYTES + SYNC_PUSH_BATCH_SIZE_MAX * (jsonBytesMax(document, new Set(['voucher'])) + 1);

describe('limits', () => {
  it('a listing\'s default page size is one it accepts', () => {
    assert.ok(PAGE_SIZE_DEFAULT >= 1 && PAGE_SIZE_DEFAULT <= PAGE_SIZE_MAX, `${PAGE_SIZE_DEFAULT} within 1..${PAGE_SIZE_MAX}`);
  });

  it('a full push of the documents a kiosk sends fits one socket.io message', () => {
    // The server refuses a larger message unread (SYNC_MESSAGE_BYTES_MAX); the kiosk pushes
    // SYNC_PUSH_BATCH_SIZE_MAX documents at a time, whatever their size.
    // A queued document carries no verdict yet: the server sets those fields.
    const verdict = ['declineCode', 'declineReason', 'settledAt', 'payerHandle', 'walletRef'];
    for (const [name, document] of [
      ['gift card sales', without(GiftCardSaleDocument as unknown as Record<string, unknown>, ...verdict)],
      ['shift events', without(ShiftEventDocument as unknown as Record<string, unknown>, ...verdict)],
      ['offline payments without a cart (taps, QR vouchers)', without(OfflinePaymentDocument as unknown as Record<string, unknown>, 'items', ...verdict)],
    ] as const) {
      const bytes = pushBytesMax(document);
      assert.ok(bytes <= SYNC_MESSAGE_BYTES_MAX, `${name}: ${bytes} bytes > ${SYNC_MESSAGE_BYTES_MAX}`);
    }
  });

  // Not so a hundred carts at their longest: one offline payment or till sale of CART_LINES_MAX
  // lines of the longest names is about 160 kB, a hundred of them 16 MB. The kiosk splits a push
  // into messages by size (terminal/src/renderer/lib/push-chunks.ts), which holds only if ONE such
  // document fits a message.
  it('one offline payment or till sale with the longest cart fits one socket.io message (a push is split by size at the kiosk)', () => {
    const verdict = ['declineCode', 'declineReason', 'settledAt', 'payerHandle', 'walletRef'];
    for (const [name, document] of [
      ['an offline payment with its cart', without(OfflinePaymentDocument as unknown as Record<string, unknown>, ...verdict)],
      ['a till sale', without(TillSaleDocument as unknown as Record<string, unknown>, ...verdict)],
    ] as const) {
      const bytes = ENVELOPE_BYTES + jsonBytesMax(document, new Set(['voucher']));
      assert.ok(bytes <= SYNC_MESSAGE_BYTES_MAX, `${name}: ${bytes} bytes > ${SYNC_MESSAGE_BYTES_MAX}`);
    }
  });

  it('the replica holds every text the server keeps from a document', () => {
    // A text longer than the server's limit is declined with a reason; one longer than the
    // replica's storage limit cannot be stored at the till at all.
    const description = (OfflinePaymentDocument.properties.description as unknown as { maxLength: number }).maxLength;
    assert.ok(DESCRIPTION_LENGTH_MAX <= description, `${DESCRIPTION_LENGTH_MAX} <= ${description}`);
    const voucher = (OfflinePaymentDocument.properties.voucher as unknown as { maxLength: number }).maxLength;
    assert.ok(voucher <= OFFLINE_QR_VOUCHER_LENGTH_MAX, `a stored voucher (${voucher}) is one the server reads (${OFFLINE_QR_VOUCHER_LENGTH_MAX})`);
    assert.equal((GiftCardSaleDocument.properties.message as unknown as { maxLength: number }).maxLength, GIFT_CARD_LIMITS.messageLengthMax);
  });

  it('the kiosk\'s no-PIN allowance per tap is at most its allowance per day', () => {
    // A tap above the day's allowance could never be taken without the PIN.
    assert.ok(NO_PIN_PER_TAP_USD_DEFAULT <= NO_PIN_PER_DAY_USD_DEFAULT, `${NO_PIN_PER_TAP_USD_DEFAULT} <= ${NO_PIN_PER_DAY_USD_DEFAULT}`);
  });

  it('a terminal\'s offline limit per payment is within its total and its no-PIN tap', () => {
    // One payment is part of the total; and an offline tap cannot ask for the PIN, so a default
    // per-payment limit above the no-PIN tap limit would promise taps the kiosk refuses.
    assert.ok(OFFLINE_PER_PAYMENT_USD_DEFAULT <= OFFLINE_TOTAL_USD_DEFAULT, `${OFFLINE_PER_PAYMENT_USD_DEFAULT} <= ${OFFLINE_TOTAL_USD_DEFAULT}`);
    assert.ok(OFFLINE_PER_PAYMENT_USD_DEFAULT <= NO_PIN_PER_TAP_USD_DEFAULT, `${OFFLINE_PER_PAYMENT_USD_DEFAULT} <= ${NO_PIN_PER_TAP_USD_DEFAULT}`);
  });

  it('the default ages are within their bounds', () => {
    // OFFLINE_MAX_AGE_HOURS's default is a value the setting accepts; a voucher's default life is one it may have.
    assert.ok(OFFLINE_PAYMENT_AGE_HOURS_DEFAULT >= 1 && OFFLINE_PAYMENT_AGE_HOURS_DEFAULT <= OFFLINE_PAYMENT_AGE_HOURS_MAX);
    assert.ok(OFFLINE_QR_VOUCHER_HOURS_DEFAULT >= 1 && OFFLINE_QR_VOUCHER_HOURS_DEFAULT <= OFFLINE_QR_VOUCHER_HOURS_MAX);
    const { expiresInMonthsMin, expiresInMonthsDefault, expiresInMonthsMax } = GIFT_CARD_LIMITS;
    assert.ok(expiresInMonthsMin <= expiresInMonthsDefault && expiresInMonthsDefault <= expiresInMonthsMax);
  });

  it('the keypad\'s digits reach the largest amount and no further', () => {
    // AMOUNT_INTEGER_DIGITS_MAX nines are the largest whole amount under AMOUNT_MAJOR_MAX.
    assert.equal(10 ** AMOUNT_INTEGER_DIGITS_MAX, AMOUNT_MAJOR_MAX);
  });

  it('a tax rate in percent and in basis points have the same largest value', () => {
    // The API takes percent (products, POS lines); carts and the replica keep basis points.
    assert.equal(TAX_RATE_PERCENT_MAX * 100, TAX_RATE_BPS_MAX);
  });

  it('a product\'s name fits a cart line\'s', () => {
    // Selling a product makes a line with its name; a longer name would fail the cart.
    assert.ok(PRODUCT_NAME_LENGTH_MAX <= CART_LINE_NAME_LENGTH_MAX, `${PRODUCT_NAME_LENGTH_MAX} <= ${CART_LINE_NAME_LENGTH_MAX}`);
  });

  it('every id issued can be looked up', () => {
    // A path id is checked against LOOKUP_ID_LENGTH_MAX: an issued id longer would answer 400.
    assert.ok(ID_LENGTH_MAX <= LOOKUP_ID_LENGTH_MAX, `${ID_LENGTH_MAX} <= ${LOOKUP_ID_LENGTH_MAX}`);
  });

  it('the number a cashier types is one the API accepts', () => {
    assert.ok(PHONE_TYPED_LENGTH_MAX <= PHONE_LENGTH_MAX, `${PHONE_TYPED_LENGTH_MAX} <= ${PHONE_LENGTH_MAX}`);
  });

  it('every wrong secret locks the same way', () => {
    // docs/api-conventions.md: five wrong PINs in a row lock the wallet (or a gift card) for 15
    // minutes; manager PINs and sign-ins follow the wallet's rule.
    const rules = [
      ['wallet PIN', WALLET_PIN_ATTEMPTS_MAX, WALLET_PIN_LOCK_MINUTES],
      ['gift card PIN', GIFT_CARD_LIMITS.pinAttemptsMax, GIFT_CARD_LIMITS.pinLockMinutes],
      ['manager PIN', MANAGER_PIN_ATTEMPTS_MAX, MANAGER_PIN_LOCK_MINUTES],
      ['sign-in', SIGN_IN_ATTEMPTS_MAX, SIGN_IN_LOCK_MINUTES],
    ] as const;
    for (const [name, attempts, minutes] of rules) assert.deepEqual([name, attempts, minutes], [name, 5, 15]);
  });

  it('a terminal may send at once what it may send in a second', () => {
    // The token bucket's burst holds at least one second's average, or the average is never reached.
    assert.ok(SYNC_MESSAGE_BURST_MAX >= SYNC_MESSAGES_PER_SECOND_MAX, `${SYNC_MESSAGE_BURST_MAX} >= ${SYNC_MESSAGES_PER_SECOND_MAX}`);
  });
});
