// Every code a synced document can be declined with (an offline payment, a till sale, a gift card
// sold offline: `declineCode` on the document and in its webhook event), in one place beside the
// API's error codes (error-codes.ts). The server's verdicts take only these codes (their types say
// so), the database functions' verdicts are checked against this list by a test
// (sync-server/src/db/verdict-codes.test.ts), the kiosk has a sentence for each in every language
// (shared/src/decline-codes.test.ts), and docs/errors.md lists them (`npm run openapi`).
//
// A cart the server refuses (its lines do not add up, a line is malformed) is declined with the
// cart's own error code (cart.ts, CartError: a 400 code of error-codes.ts), so it is not repeated here.
// Several codes are also API error codes (insufficient_funds, pin_required, ...): the same rule
// has the same name whether a request is refused or a synced document declined.
//
// Codes are a public contract, as error codes are: add codes; do not rename or remove one.
import type { CartError } from './cart.ts';

export interface DeclineCodeInfo {
  /** What the code means, in English (the kiosk's sentences are in shared/src/i18n, errors.<code>). */
  readonly sentence: string;
  /** The synced documents it declines. */
  readonly documents: readonly ('offline_payment' | 'till_sale' | 'gift_card_sale')[];
}

export const DECLINE_CODES = {
  amount_exceeds_voucher: { documents: ['offline_payment'], sentence: 'The amount is more than the offline QR voucher reserved' },
  captured_before_terminal: { documents: ['offline_payment', 'till_sale', 'gift_card_sale'], sentence: 'Dated before the terminal was created: the terminal\'s clock is wrong' },
  captured_in_future: { documents: ['offline_payment', 'till_sale', 'gift_card_sale'], sentence: 'Dated more than 5 minutes ahead of the server: the terminal\'s clock is ahead' },
  cash_short: { documents: ['till_sale'], sentence: 'The cash recorded as handed over is less than the cash part of the sale' },
  change_mismatch: { documents: ['till_sale'], sentence: 'The change recorded is not the cash handed over minus the cash part' },
  code_taken: { documents: ['gift_card_sale'], sentence: 'A gift card with this code already exists: the terminal must make a new code' },
  currency_not_accepted: { documents: ['till_sale'], sentence: 'The sale is not in the merchant\'s currency' },
  id_taken: { documents: ['offline_payment', 'till_sale', 'gift_card_sale'], sentence: 'The id belongs to another merchant\'s or mode\'s document: the terminal must make a new id' },
  insufficient_funds: { documents: ['offline_payment', 'gift_card_sale'], sentence: 'The paying wallet (the customer\'s for a payment, the merchant\'s for a gift card sold) did not hold the amount when it reached the server' },
  invalid_document: { documents: ['offline_payment', 'till_sale', 'gift_card_sale'], sentence: 'The document is malformed (the reason names the field)' },
  offline_amount_over_limit: { documents: ['offline_payment'], sentence: 'Over the terminal\'s limit for one offline payment' },
  offline_currency_not_allowed: { documents: ['offline_payment'], sentence: 'Offline payments are taken in the merchant\'s currency only' },
  offline_exposure_limit: { documents: ['offline_payment'], sentence: 'The terminal already held as much in offline payments as it may' },
  offline_payment_too_old: { documents: ['offline_payment'], sentence: 'Taken longer before it reached the server than the terminal\'s limit for offline payments' },
  offline_payments_disabled: { documents: ['offline_payment'], sentence: 'Offline payments are turned off for this terminal' },
  payer_is_merchant: { documents: ['offline_payment'], sentence: 'The wallet that tapped is the merchant\'s own: a shop cannot pay its own sale' },
  pin_required: { documents: ['offline_payment'], sentence: 'The amount needed the customer\'s PIN (over her no-PIN allowance), which an offline tap cannot check' },
  settlement_failed: { documents: ['offline_payment', 'till_sale', 'gift_card_sale'], sentence: 'The server could not settle it; nothing was charged' },
  tag_disabled: { documents: ['offline_payment'], sentence: 'The wearable or card was turned off by its owner' },
  tag_not_found: { documents: ['offline_payment'], sentence: 'No wallet has this wearable or card' },
  tender_claimed: { documents: ['till_sale'], sentence: 'A tender it names already pays another till sale' },
  tender_not_supported: { documents: ['till_sale'], sentence: 'A tender of a kind this server does not take' },
  tender_unverified: { documents: ['till_sale'], sentence: 'A tender it names is not a completed payment of this till for this amount' },
  tenders_mismatch: { documents: ['till_sale'], sentence: 'The tenders do not add up to the sale and its tip' },
  voucher_already_used: { documents: ['offline_payment'], sentence: 'The offline QR voucher has already paid (the first payment wins)' },
  voucher_currency_mismatch: { documents: ['offline_payment'], sentence: 'The offline QR voucher is in another currency' },
  voucher_expired: { documents: ['offline_payment'], sentence: 'The offline QR voucher expired; its reserved money went back to the customer' },
  voucher_malformed: { documents: ['offline_payment'], sentence: 'Not a Tapline offline QR voucher' },
  voucher_revoked: { documents: ['offline_payment'], sentence: 'The customer revoked the offline QR voucher before the payment reached the server' },
  voucher_signature_invalid: { documents: ['offline_payment'], sentence: 'The offline QR voucher is not signed by Tapline (forged or damaged)' },
  voucher_unknown: { documents: ['offline_payment'], sentence: 'No offline QR voucher was issued under this signature' },
  voucher_unknown_key: { documents: ['offline_payment'], sentence: 'The offline QR voucher is signed with a key the server does not know' },
  voucher_wrong_mode: { documents: ['offline_payment'], sentence: 'The offline QR voucher is for the other mode (test or live)' },
} as const satisfies Record<string, DeclineCodeInfo>;

/** A code a synced document is declined with: one of DECLINE_CODES, or a cart's error code. */
export type DeclineCode = keyof typeof DECLINE_CODES | CartError['code'];

export function isDeclineCode(code: string): code is keyof typeof DECLINE_CODES {
  return Object.hasOwn(DECLINE_CODES, code);
}
