// Flutterwave virtual account numbers for wallet top-ups by bank transfer: a permanent ("static")
// NGN account number per wallet, made with POST /v3/virtual-account-numbers, and the bank transfers
// into it, each read back with GET /v3/transactions/{id}/verify before anything is credited.
//
// Sources (Flutterwave publishes no machine-readable v3 document; test/fakes/flutterwave/README.md
// has the same table):
//   SDK   = Flutterwave/Node-v3 at 537f9f4455f922a879e4f088cf0f596621c3517c
//   docs  = developer.flutterwave.com pages
//
// Making the account: POST /v3/virtual-account-numbers (SDK services/virtual-account/rave.create.js)
// with the SDK's accountSchema (services/schema/create.js), and nothing it does not list:
//   email         string, an address, at most 100, required   (SDK accountSchema)
//   is_permanent  boolean, required: true, a static account     (SDK accountSchema; docs "Virtual
//                 accounts": a static account "doesn't expire", for "an app with a wallet system")
//   bvn           11 characters, required when is_permanent     (SDK accountSchema; SDK
//                 documentation/virtualAccount.md: "BVN is required for creating static account
//                 numbers in the Live Environment")
//   tx_ref        trimmed, at most 100                          (SDK accountSchema)
//   narration     at most 100                                   (SDK accountSchema; the sample sends
//                 the customer's name, and the answer's note reads "Please make a bank transfer to
//                 <narration>")
// The docs' curl samples also send phonenumber, firstname and lastname; the SDK's schema (Joi,
// unknown keys refused) does not list them, so they are not sent. The SDK sends no currency: the
// docs' "NGN Virtual Accounts" page makes naira accounts by default, and only NGN is asked for here.
//
// The answer (SDK documentation/virtualAccount.md, "Sample Response"): data { response_code "02",
// response_message "Transaction in progress", flw_ref, order_ref, account_number, frequency,
// bank_name, created_at, expiry_date ("N/A" for a static account), note, amount }. The account's
// name is read from the note ("Please make a bank transfer to <name>"), else the narration sent.
// GET /v3/virtual-account-numbers/{order_ref} answers the same data (docs "Get a virtual account
// number"; the SDK's VirtualAcct.fetch, services/virtual-account/rave.retrieve.js, requests
// v3/bulk-virtual-account-numbers/{order_ref} instead, which the SDK's own documentation calls
// "Fetch bulk virtual account details" by batch_id: the docs' path is used). It is asked when the
// create answer carries an order_ref but no account number yet.
//
// Idempotent per wallet and currency: the tx_ref is accountKeyOf(walletId, currency) (keys.ts) and
// the email `<that key>@wallets.invalid` (`.invalid` is reserved by RFC 2606: it reaches nobody; a
// wallet has no e-mail address), the same on every attempt. The server keeps the account it got
// (wallet_virtual_accounts, one per wallet, currency and mode) and asks again only when it has none:
// after an answer lost in flight, the same tx_ref is sent again. Neither the SDK nor the docs say
// what Flutterwave answers a repeated tx_ref, nor offer a way to find an account by tx_ref or email
// (only by order_ref, which a lost answer never gave us): if Flutterwave refuses the repeat, the
// adapter says so (virtual_account_unavailable) and logs it for the operator, never making a
// second account under another tx_ref. The fake answers a repeat with the account it made.
//
// Money arriving: charge.completed (docs "Webhooks": `{ event, data }`, header verif-hash) whose
// data.payment_type is "bank_transfer" and whose data.tx_ref is one of our account keys. No
// Flutterwave document shows this webhook: that a static account's transfers carry the tx_ref the
// account was made with (and not its account number) is this adapter's reading of a merchant's
// logged live webhook of such a transfer (a public repository's comment: `payment_type:
// "bank_transfer"`, a merchant-made `tx_ref`, `event.type: "BANK_TRANSFER_TRANSACTION"`, the sender
// in `meta_data { originatorname, bankname, originatoraccountnumber }`, no account number), to be
// checked against Flutterwave's test environment before going live. The docs say only that a
// webhook is sent and must be verified before crediting). callbacks.ts confirms it with GET
// /v3/transactions/{id}/verify (SDK services/transactions/rave.verify.js, fetchSchema: id an
// integer; its answer, SDK documentation/transactions.md "Verify transaction": data { id, tx_ref,
// flw_ref, amount (major units), currency, charged_amount, app_fee, status "successful",
// payment_type, created_at, customer, meta, ... }) and transferOf reads the verified record: only
// its status, amount, currency, payment_type and tx_ref count, never the webhook's body.
//
// Requery: Flutterwave has no requery for virtual accounts. requery() lists the day's transactions
// (GET /v3/transactions?from&to&tx_ref&page: SDK Transaction.fetch, services/transactions/
// rave.retrieve.js with listSchema's from, to, page, tx_ref; meta.page_info { total, current_page,
// total_pages }) and asks Flutterwave to send each successful bank transfer's webhook again
// (POST /v3/transactions/{id}/resend-hook: SDK services/transactions/rave.resend-hooks.js; "hook
// sent successfully"): what it finds arrives by the webhook, as with Paystack's requery.
import { minorFromMajor } from '@tapline/shared/money';
import type { ArrivedBankTransfer, RailAdapterDeps, VirtualAccountDetails, VirtualAccountProvider, VirtualAccountRequest } from '../types.ts';
import { type FlutterwaveClient, FlutterwaveError, errorOf, successData } from './client.ts';
import { accountIdOf, accountKeyOf } from './keys.ts';

export const VA_CURRENCIES = ['NGN'] as const;
/** data.payment_type of a bank transfer into a virtual account (a merchant's logged charge.completed; see above). */
export const BANK_TRANSFER_PAYMENT_TYPE = 'bank_transfer';
export const WALLET_EMAIL_DOMAIN = 'wallets.invalid';
const PAGES_MAX = 50;

export function walletEmail(walletId: string, currency: string): string {
  return `${accountKeyOf(walletId, currency)}@${WALLET_EMAIL_DOMAIN}`;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' && value.trim() !== 'N/A' ? value.replace(/\s+/g, ' ').trim() : undefined);

/** The account in a create or fetch answer's data; undefined without an account number and bank. */
function accountOf(data: unknown, txRef: string, narration: string): VirtualAccountDetails | undefined {
  if (!isObject(data)) return undefined;
  const accountNumber = text(data.account_number);
  const bankName = text(data.bank_name);
  const orderRef = text(data.order_ref);
  if (!accountNumber || !bankName || !orderRef) return undefined;
  const noted = /^please make a bank transfer to\s+(.+)$/i.exec(text(data.note) ?? '')?.[1];
  return {
    // The tx_ref names the account in every transfer's record: kept as the provider's customer.
    providerCustomer: txRef,
    providerAccountId: orderRef,
    accountNumber,
    accountName: (noted ?? narration).slice(0, 100),
    bankName,
  };
}

/**
 * A verified transaction (GET /v3/transactions/{id}/verify data) read as a bank transfer into one
 * of our accounts; undefined when it is not one (another payment type, a tx_ref not ours), not
 * successful, or its amount is not an exact amount of the currency.
 */
export function transferOf(data: unknown): ArrivedBankTransfer | undefined {
  if (!isObject(data) || data.status !== 'successful' || data.payment_type !== BANK_TRANSFER_PAYMENT_TYPE) return undefined;
  const txRef = text(data.tx_ref);
  const account = txRef ? accountIdOf(txRef) : undefined;
  const currency = text(data.currency)?.toUpperCase();
  const id = typeof data.id === 'number' || typeof data.id === 'string' ? String(data.id).trim() : '';
  const major = typeof data.amount === 'number' ? data.amount : typeof data.amount === 'string' && data.amount.trim() !== '' ? Number(data.amount) : Number.NaN;
  if (!txRef || !account || !currency || currency !== account.currency || !id || !(major > 0)) return undefined;
  let amount: number;
  try {
    amount = minorFromMajor(major, currency);
  } catch {
    return undefined;
  }
  const meta = isObject(data.meta) ? data.meta : {};
  const customer = isObject(data.customer) ? data.customer : {};
  return {
    // The transaction's own id: what verify confirmed, unique per transfer (the tx_ref is the account's).
    providerReference: id,
    accountReference: txRef,
    amount,
    currency,
    paidAt: text(data.created_at),
    senderName: (text(meta.originatorname) ?? text(customer.name))?.slice(0, 120),
    senderBank: text(meta.bankname)?.slice(0, 120),
    narration: text(data.narration)?.slice(0, 200),
  };
}

export interface FlutterwaveVirtualAccounts extends VirtualAccountProvider {
  /** Flutterwave's verified record of a transaction (GET /v3/transactions/{id}/verify), read as a bank transfer; undefined when it is none of ours. Throws when Flutterwave cannot answer now. */
  verifyTransfer(transactionId: string): Promise<{ transfer: ArrivedBankTransfer | undefined; status: string | undefined }>;
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

export function createVirtualAccounts(client: FlutterwaveClient, deps: Pick<RailAdapterDeps, 'log'>): FlutterwaveVirtualAccounts {
  async function fetchAccount(orderRef: string, txRef: string, narration: string): Promise<VirtualAccountDetails | undefined> {
    const what = 'GET /v3/virtual-account-numbers/{order_ref}';
    const answer = await client.request('GET', `/v3/virtual-account-numbers/${encodeURIComponent(orderRef)}`);
    return accountOf(successData(client, answer, what), txRef, narration);
  }

  async function open(request: VirtualAccountRequest): Promise<VirtualAccountDetails> {
    if (!(VA_CURRENCIES as readonly string[]).includes(request.currency)) throw new FlutterwaveError('refused', `Flutterwave virtual account numbers are made in ${VA_CURRENCIES.join(', ')} only here`);
    const bvn = request.bvn?.trim();
    if (!bvn || !/^\d{11}$/.test(bvn)) throw new FlutterwaveError('refused', 'Flutterwave needs the holder\'s BVN (11 digits) to make a permanent account number');
    const txRef = accountKeyOf(request.walletId, request.currency);
    const narration = `${request.firstName} ${request.lastName === request.firstName ? '' : request.lastName}`.replace(/\s+/g, ' ').trim().slice(0, 100);
    const what = 'POST /v3/virtual-account-numbers';
    const answer = await client.request('POST', '/v3/virtual-account-numbers', {
      body: { email: walletEmail(request.walletId, request.currency), is_permanent: true, bvn, tx_ref: txRef, narration },
    });
    if (!(answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body.status === 'success')) {
      const error = errorOf(client, answer, what);
      if (error.kind === 'refused') deps.log('flutterwave refused a virtual account number; if it was made before under this tx_ref, Flutterwave offers no look-up by tx_ref', { txRef, message: error.providerMessage });
      throw error;
    }
    const data = answer.body.data;
    const account = accountOf(data, txRef, narration);
    if (account) {
      deps.log('flutterwave virtual account number made', { walletId: request.walletId, bank: account.bankName });
      return account;
    }
    // Accepted, but the account number is not in the answer yet: ask for it by its order_ref.
    const orderRef = isObject(data) ? text(data.order_ref) : undefined;
    const fetched = orderRef ? await fetchAccount(orderRef, txRef, narration) : undefined;
    if (fetched) return fetched;
    throw new FlutterwaveError('malformed', `Flutterwave answered ${what} without an account number`);
  }

  async function verifyTransfer(transactionId: string): Promise<{ transfer: ArrivedBankTransfer | undefined; status: string | undefined }> {
    if (!/^\d{1,20}$/.test(transactionId)) throw new FlutterwaveError('refused', 'a Flutterwave transaction id is an integer');
    const what = 'GET /v3/transactions/{id}/verify';
    const answer = await client.request('GET', `/v3/transactions/${transactionId}/verify`);
    const data = successData(client, answer, what);
    if (!isObject(data) || String(data.id) !== transactionId) throw new FlutterwaveError('malformed', `Flutterwave answered ${what} without the transaction asked for`);
    return { transfer: transferOf(data), status: typeof data.status === 'string' ? data.status.toLowerCase() : undefined };
  }

  async function requery(account: { accountNumber: string; providerCustomer?: string | undefined }, day: string): Promise<void> {
    const txRef = account.providerCustomer;
    if (!txRef || !accountIdOf(txRef)) throw new FlutterwaveError('refused', 'this account has no Flutterwave tx_ref to look for');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`${day} is not a day (YYYY-MM-DD)`);
    const found: string[] = [];
    for (let page = 1; page <= PAGES_MAX; page += 1) {
      const answer = await client.request('GET', '/v3/transactions', { query: { from: day, to: nextDay(day), tx_ref: txRef, page } });
      const data = successData(client, answer, `GET /v3/transactions?from=${day}&page=${page}`);
      if (!Array.isArray(data)) throw new FlutterwaveError('malformed', "Flutterwave's transaction list is not a list");
      for (const item of data) {
        if (isObject(item) && item.tx_ref === txRef && item.payment_type === BANK_TRANSFER_PAYMENT_TYPE && item.status === 'successful' && item.id !== undefined && item.id !== null) found.push(String(item.id));
      }
      const meta = answer.body.meta as { page_info?: { total_pages?: unknown } } | undefined;
      if (data.length === 0 || !(page < Number(meta?.page_info?.total_pages ?? 0))) break;
    }
    for (const id of found) {
      const answer = await client.request('POST', `/v3/transactions/${encodeURIComponent(id)}/resend-hook`, { body: { id: Number(id) } });
      successData(client, answer, 'POST /v3/transactions/{id}/resend-hook');
    }
  }

  return { currencies: VA_CURRENCIES, needsBvn: true, open, requery, verifyTransfer };
}
