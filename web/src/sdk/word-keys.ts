/**
 * The words of the checkout drop-in: a short name for each catalogue key it shows, and the error
 * codes a buyer can meet while paying. The build (build/drop-in-words.ts) bundles these, in every
 * language, and nothing else of the catalogues: the drop-in runs in merchants' pages and must
 * stay small (build.test.ts). Plain data, read by the build in Node and by the drop-in's types.
 */
import type { MessageKey } from '@tapline/shared/i18n';

export const DROP_IN_TEXT = {
  close: 'web.dropIn.close',
  dialog: 'web.dropIn.dialog',
  checkout: 'web.brandSubtitle.checkout',
  preparing: 'web.dropIn.preparing',
  payTo: 'web.pay.payMerchant',
  payAmount: 'web.pay.payAmount',
  testMode: 'web.dropIn.testMode',
  sandbox: 'web.dropIn.sandbox',
  mobile_money: 'web.dropIn.rails.mobile_money',
  bank_transfer: 'web.dropIn.rails.bank_transfer',
  qr: 'web.dropIn.rails.qr',
  wallet: 'web.dropIn.rails.wallet',
  qrAlt: 'web.dropIn.qrAlt',
  qrHint: 'web.dropIn.qrHint',
  waitingQr: 'web.dropIn.waitingQr',
  handle: 'web.pay.handle',
  handleSample: 'web.pay.handlePlaceholder',
  pin: 'web.pay.pin',
  pinSample: 'web.pay.pinPlaceholder',
  enterHandle: 'web.pay.enterHandle',
  pinDigits: 'web.pay.pinDigits',
  phone: 'web.dropIn.phone',
  enterPhone: 'web.dropIn.enterPhone',
  account: 'web.dropIn.account',
  enterAccount: 'web.dropIn.enterAccount',
  payingWallet: 'web.dropIn.payingWallet',
  waiting: 'web.dropIn.waiting',
  paid: 'web.dropIn.paid',
  expired: 'web.dropIn.expired',
  failed: 'web.pay.failed',
  failedText: 'web.pay.failedText',
  paidTo: 'web.dropIn.paidTo',
  paidToFor: 'web.dropIn.paidToFor',
  done: 'web.dropIn.done',
  networkError: 'errors.network_error',
  serverAnswered: 'web.pay.serverAnswered',
  unavailable: 'web.dropIn.unavailable',
} as const satisfies Record<string, MessageKey>;

/** The codes the catalogues have a sentence for (`errors.<code>`). */
type ErrorCode<Key = MessageKey> = Key extends `errors.${infer Code}` ? Code : never;

/** Codes the checkout's payment answers to a buyer; any other error shows the server's own words. */
export const DROP_IN_ERRORS = [
  'wrong_pin',
  'pin_attempts_exceeded',
  'insufficient_funds',
  'wallet_not_found',
  'payer_is_merchant',
  'checkout_session_expired',
  'checkout_session_not_open',
  'rate_limited',
] as const satisfies readonly ErrorCode[];

/** One language's words, as the build bundles them. */
export interface DropInWords {
  text: { readonly [Name in keyof typeof DROP_IN_TEXT]: string };
  errors: { readonly [Code in (typeof DROP_IN_ERRORS)[number]]: string };
}
