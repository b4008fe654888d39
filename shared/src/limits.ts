/**
 * Tapline's product limits, in one place (issue 27): the sizes, lengths, amounts, counts, rates and
 * ages a caller, a kiosk or a cashier can run into, each named with its qualifier last (`X_MAX`,
 * `X_MIN`, `X_DEFAULT`, or the unit: `X_MINUTES`, `X_HOURS`, `X_BYTES`). limits.test.ts asserts
 * how they relate (a default within its bounds, a batch that fits its message, ...), and
 * sync-server/src/db/limits-sql.test.ts that a database function repeating one says the same.
 *
 * What belongs here: a rule a user of the API, the dashboard or the kiosk can meet (and that
 * docs/ may state). What does not: a process's technical bounds that are no product rule (a pool
 * size, a retry back-off, a cache's size, a provider's own field lengths), which stay beside the
 * code they bound; and the limits an operator sets (sync-server/src/config.ts, SETTINGS, listed in
 * docs/configuration.md), of which only the defaults that other limits must agree with are here.
 *
 * This file imports nothing: the kiosk's bundle and every package read it without TypeBox.
 */

// ---------------------------------------------------------------------------------------------
// Amounts.

/** The largest amount, in major units, that the API accepts (CONTRACT.md: over 1e12 is a 400). */
export const AMOUNT_MAJOR_MAX = 1e12;
/** The integer digits a cashier may type for an amount: 10^12 is AMOUNT_MAJOR_MAX. */
export const AMOUNT_INTEGER_DIGITS_MAX = 12;

// ---------------------------------------------------------------------------------------------
// Lists and requests.

/** The `limit` of a listing: at most this many items per page, this many when absent. */
export const PAGE_SIZE_MAX = 100;
export const PAGE_SIZE_DEFAULT = 20;
/**
 * The deepest nesting of arrays and objects a JSON body may have. The deepest body the API
 * documents (a payroll run: the run, its items, an item, its structured receiver) is 4 levels; 32
 * leaves room for any future shape while code that walks a body (the Idempotency-Key request
 * hash) stays far from the stack limit.
 */
export const JSON_DEPTH_MAX = 32;
/** The default of BODY_LIMIT_BYTES: the largest HTTP request body accepted. */
export const REQUEST_BODY_BYTES_DEFAULT = 1024 * 1024;
/** An Idempotency-Key header: 1 to this many characters. */
export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
/** The text a payment page's QR code (GET /pos/qr.svg?data=) may encode. */
export const QR_TEXT_LENGTH_MAX = 512;
/** The largest CSV file the dashboard reads (an import of 500 rows fits many times over). */
export const CSV_FILE_BYTES_MAX = 1_000_000;
/** Rows of one CSV export of payouts. */
export const PAYOUT_CSV_ROWS_MAX = 10_000;

// ---------------------------------------------------------------------------------------------
// Common fields: the same kind of field takes the same length in every schema.

/** An id Tapline issues or a caller sends as a body field (product, plan, tag, cashier, run, ...). */
export const ID_LENGTH_MAX = 64;
/**
 * An id a caller names to look a record up (the `:id` of many paths, a filter): longer than any id
 * issued, so a mistyped id is answered 404 not found rather than 400.
 */
export const LOOKUP_ID_LENGTH_MAX = 100;
/** A person's or a thing's name (a receiver, a display name, a program, an account holder). */
export const NAME_LENGTH_MAX = 100;
/** The caller's own reference, echoed back (payments, links, payroll lines, bills). */
export const REFERENCE_LENGTH_MAX = 100;
/** A free description (a payment link's, a checkout's, a POS session's, a gift-card program's). */
export const DESCRIPTION_LENGTH_MAX = 500;
/** A free note kept with a payment or an operator's correction. */
export const NOTE_LENGTH_MAX = 500;
/** A URL the caller gives (webhook, callback, logo, image). */
export const URL_LENGTH_MAX = 2048;
/** A mobile money number as typed: E.164 or the country's local form, with room for spaces. */
export const PHONE_LENGTH_MAX = 32;
/** The longest number a cashier can type at the till: E.164 is at most 15 digits after the +. */
export const PHONE_TYPED_LENGTH_MAX = 16;
/** An e-mail address (RFC 5321's 254). */
export const EMAIL_LENGTH_MAX = 254;
/** A merchant user's password. */
export const PASSWORD_LENGTH_MIN = 10;
export const PASSWORD_LENGTH_MAX = 200;
/** An ISO 8601 date or date-time given as text. */
export const DATE_TEXT_LENGTH_MAX = 40;
/** A bank account number (6 to 20 digits, or an IBAN). */
export const ACCOUNT_NUMBER_LENGTH_MAX = 40;
/** A bank's code at its provider. */
export const BANK_CODE_LENGTH_MAX = 20;

// ---------------------------------------------------------------------------------------------
// The till's cart and catalogue (shared/src/cart.ts; docs/till.md, docs/catalogue.md).

/** Lines of one sale. */
export const CART_LINES_MAX = 200;
/** Whole units on one line. */
export const CART_LINE_QUANTITY_MAX = 9_999;
/** A line's name as printed on the receipt. */
export const CART_LINE_NAME_LENGTH_MAX = 120;
/** A tax rate, in basis points (100 %) and in percent as the API takes it. */
export const TAX_RATE_BPS_MAX = 10_000;
export const TAX_RATE_PERCENT_MAX = 100;
/** A catalogue product's name (it becomes a cart line's name). */
export const PRODUCT_NAME_LENGTH_MAX = 120;
/** Tenders (cash, card, tap, ...) paying one till sale. */
export const TILL_TENDERS_MAX = 8;
/** A till staff member's name. */
export const TILL_STAFF_NAME_LENGTH_MAX = 80;
/** Why the drawer opened or cash moved, as the server keeps it (docs/till.md). */
export const SHIFT_REASON_LENGTH_MAX = 200;

// ---------------------------------------------------------------------------------------------
// Sync between a kiosk and the server (shared/src/sync-protocol.ts).

/** Documents in one push (each settles money: a push is one transaction). */
export const SYNC_PUSH_BATCH_SIZE_MAX = 100;
/**
 * Documents in one pull answer. Pulls only read, and a fresh kiosk pulls the whole catalogue
 * (thousands of products) before it can sell items offline: fewer, larger answers reach it sooner.
 */
export const SYNC_PULL_BATCH_SIZE_MAX = 500;
/** A socket.io message larger than this is refused before it is parsed (a full push fits: limits.test.ts). */
export const SYNC_MESSAGE_BYTES_MAX = 1_000_000;
/**
 * Acknowledged messages (pull, push, status) one terminal may send, all its connections to a
 * server process together: on average this many a second, and up to the burst at once (a token
 * bucket). A kiosk sends one push or pull at a time and a few a second when it catches up; a
 * connection that sends more (a loop, or many sockets) is answered the SyncFailure `rate_limited`
 * without the server reading or writing anything, and may send again a moment later.
 */
export const SYNC_MESSAGES_PER_SECOND_MAX = 50;
export const SYNC_MESSAGE_BURST_MAX = 200;
/** The largest queued count a terminal may report (a replica never holds more). */
export const SYNC_QUEUED_MAX = 1_000_000;
// The texts the server keeps from a synced document are the API's: a description at most
// DESCRIPTION_LENGTH_MAX, a gift card's message GIFT_CARD_LIMITS.messageLengthMax, a voucher
// OFFLINE_QR_VOUCHER_LENGTH_MAX (UTF-16 code units); longer, the document is declined with the reason.

// ---------------------------------------------------------------------------------------------
// Offline payments (docs: a terminal's offline limits; modules/offline).

/**
 * The longest an offline payment may wait to reach the server, the most a terminal's maxAgeHours
 * or the server's OFFLINE_MAX_AGE_HOURS may be: older, it is declined `offline_payment_too_old`,
 * so the server needs no record of a terminal's contacts (nor a tag's no-PIN days) before then.
 */
export const OFFLINE_PAYMENT_AGE_HOURS_MAX = 720;
/** OFFLINE_MAX_AGE_HOURS's default. */
export const OFFLINE_PAYMENT_AGE_HOURS_DEFAULT = 72;
/** OFFLINE_PER_PAYMENT_USD's and OFFLINE_TOTAL_USD's defaults: a terminal's offline limits. */
export const OFFLINE_PER_PAYMENT_USD_DEFAULT = 20;
export const OFFLINE_TOTAL_USD_DEFAULT = 200;
/** NO_PIN_PER_TAP_USD's and NO_PIN_PER_DAY_USD's defaults: a tag's no-PIN allowance. */
export const NO_PIN_PER_TAP_USD_DEFAULT = 20;
export const NO_PIN_PER_DAY_USD_DEFAULT = 50;
/** An offline QR voucher's life (POST /api/offline/vouchers, expiresInHours). */
export const OFFLINE_QR_VOUCHER_HOURS_MAX = 72;
export const OFFLINE_QR_VOUCHER_HOURS_DEFAULT = 24;
/** An offline QR voucher's text as scanned (TLQ1....). */
export const OFFLINE_QR_VOUCHER_LENGTH_MAX = 2048;

// ---------------------------------------------------------------------------------------------
// Rate limits (docs/api-conventions.md, Rate limits).

/** The window every API rate limit counts in (RATE_LIMIT_WINDOW_SECONDS's default). */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** A rate limit: requests per window, and whom a window counts. */
export interface RateLimitGroup {
  name: string;
  max: number;
  per: 'credential' | 'ip';
}

/** The spec's Limits table. */
export const RATE_LIMIT_GROUPS = {
  pay: { name: 'pay', max: 120, per: 'credential' },
  payments: { name: 'payments', max: 300, per: 'credential' },
  fx: { name: 'fx', max: 600, per: 'ip' },
  bills: { name: 'bills', max: 60, per: 'credential' },
  other: { name: 'other', max: 120, per: 'credential' },
} as const satisfies Record<string, RateLimitGroup>;

// ---------------------------------------------------------------------------------------------
// Wrong secrets and how long they lock (docs/api-conventions.md: five in a row, 15 minutes).

/** Wrong wallet PINs in a row before the wallet locks, and for how long. */
export const WALLET_PIN_ATTEMPTS_MAX = 5;
export const WALLET_PIN_LOCK_MINUTES = 15;
/** Wrong manager PINs at one terminal in a row before manager approvals lock, and for how long. */
export const MANAGER_PIN_ATTEMPTS_MAX = 5;
export const MANAGER_PIN_LOCK_MINUTES = 15;
/** Wrong merchant-user passwords (or codes) in a row before the sign-in locks, and for how long. */
export const SIGN_IN_ATTEMPTS_MAX = 5;
export const SIGN_IN_LOCK_MINUTES = 15;
/** Wrong cash pickup codes in a row before the pickup locks, and for how long. */
export const CASH_PICKUP_CODE_ATTEMPTS_MAX = 5;
export const CASH_PICKUP_CODE_LOCK_MINUTES = 15;
/** Unknown pairing codes one client address may try in a window before it is locked out until the window ends. */
export const PAIRING_MISSES_MAX = 10;
export const PAIRING_MISS_WINDOW_SECONDS = 900;

// ---------------------------------------------------------------------------------------------
// Ages and lives.

/** A dashboard session ends after this long without a call, and this long after sign-in whatever happens. */
export const SESSION_IDLE_MINUTES = 30;
export const SESSION_ABSOLUTE_HOURS = 12;
/** A merchant user's set-up and invitation links work this long, once. */
export const LINK_VALID_DAYS = 7;
/** A terminal's pairing code is valid this long, and pairs once. */
export const PAIRING_CODE_TTL_SECONDS = 600;
/** A wallet's one-time cash-out code is valid this long. */
export const CASH_OUT_CODE_MINUTES = 30;

/** Spec, Limits: a POS session lives 90 seconds (db/functions/pos_tap.sql says so too). */
export const POS_SESSION_TTL_SECONDS = 90;
/** A checkout session stays open this long. */
export const CHECKOUT_SESSION_TTL_SECONDS = 30 * 60;
/** An FX quote locks its rate this long (CONTRACT.md). */
export const FX_QUOTE_TTL_SECONDS = 60;
/** An Idempotency-Key and its answer are remembered this long (CONTRACT.md). */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** How long after it was paid a split sale's tender can still be returned without the manager's PIN. */
export const TENDER_RETURN_HOURS = 24;
/** How long after it was redeemed a gift card tender can still go back to its card when its sale is cancelled. */
export const GIFT_CARD_TENDER_RETURN_HOURS = 24;

// ---------------------------------------------------------------------------------------------
// Gift cards (spec, Limits; CONTRACT.md).

export const GIFT_CARD_LIMITS = {
  messageLengthMax: 160,
  expiresInMonthsMin: 1,
  expiresInMonthsMax: 24,
  expiresInMonthsDefault: 12,
  giftMonthsMax: 24,
  bulkCountMax: 100,
  importRowsMax: 500,
  programRowsMax: 500,
  singleIssuesPer24Hours: 10,
  pinAttemptsMax: 5,
  pinLockMinutes: 15,
} as const;

// ---------------------------------------------------------------------------------------------
// The store (spec: "Store").

export const STORE_LIMITS = {
  quantityMax: 100,
  reviewTitleMax: 120,
  reviewBodyMax: 2000,
  recentReviews: 5,
  imagesMax: 10,
  variantsMax: 20,
  countriesMax: 60,
  searchLengthMax: 100,
  notesMax: 500,
} as const;

// ---------------------------------------------------------------------------------------------
// Payroll.

/** Items per payroll run, and so per transaction that submits one. */
export const PAYROLL_ITEMS_MAX = 500;
