// Paystack dedicated virtual accounts (openapi.yaml tag "Dedicated Virtual Account"): a bank account
// number made for one customer, NGN or GHS only (GET /dedicated_account `currency` enum). A wallet's
// account is made in three calls:
//
//   POST /customer {email, first_name, last_name, phone?} (CustomerCreate; answers the customer_code)
//   GET  /dedicated_account?customer=<id>&currency=  (one made before for this customer: reused)
//   POST /dedicated_account {customer: <customer_code>, preferred_bank} (DedicatedVirtualAccountCreate)
//
// `preferred_bank` is the first slug GET /dedicated_account/available_providers lists. A wallet has
// no e-mail address; the customer is made under a placeholder that names the wallet and can reach
// nobody (`<keyOf(walletId)>@wallets.invalid`, `.invalid` reserved by RFC 2606), the same on every
// attempt, so a retry finds the customer and its account instead of making a second.
//
// Money arriving: Paystack sends `charge.success` with data.channel `dedicated_nuban` (its DVA
// event sample, doc-code-snippets payments/dedicated-virtual-account/event-snippet: the account it
// was paid into in data.authorization.receiver_bank_account_number, the sender in sender_name,
// sender_bank, narration). callbacks.ts confirms it with GET /transaction/verify/{reference} and
// reads the verified record here (transferOf). GET /dedicated_account/requery asks Paystack to look
// again; what it finds comes by the same webhook.
import type { ArrivedBankTransfer, RailAdapterDeps, VirtualAccountDetails, VirtualAccountProvider, VirtualAccountRequest } from '../types.ts';
import { type PaystackClient, PaystackUnavailable, paystackMessage } from './client.ts';
import { keyOf } from './keys.ts';

export const DVA_CURRENCIES = ['NGN', 'GHS'] as const;
export const DVA_CHANNEL = 'dedicated_nuban';
export const WALLET_EMAIL_DOMAIN = 'wallets.invalid';

export function walletEmail(walletId: string): string {
  return `${keyOf(walletId)}@${WALLET_EMAIL_DOMAIN}`;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** An account as POST /dedicated_account, GET /dedicated_account/{id} and the list answer it. */
function accountOf(value: unknown): VirtualAccountDetails | undefined {
  if (!isObject(value)) return undefined;
  const bank = isObject(value.bank) ? value.bank : {};
  const customer = isObject(value.customer) ? value.customer : {};
  const accountNumber = text(value.account_number);
  const accountName = text(value.account_name);
  const bankName = text(bank.name);
  const customerCode = text(customer.customer_code);
  if (!accountNumber || !accountName || !bankName || value.id === undefined || value.id === null) return undefined;
  return {
    providerCustomer: customerCode ?? '',
    providerAccountId: String(value.id),
    accountNumber,
    accountName,
    bankName,
    bankSlug: text(bank.slug),
  };
}

/** A verified transaction (GET /transaction/verify data) read as a bank transfer into a virtual account; undefined when it is not one, or not a success. */
export function transferOf(data: unknown): ArrivedBankTransfer | undefined {
  if (!isObject(data) || data.status !== 'success' || data.channel !== DVA_CHANNEL) return undefined;
  const authorization = isObject(data.authorization) ? data.authorization : {};
  const reference = text(data.reference);
  const accountNumber = text(authorization.receiver_bank_account_number);
  const currency = text(data.currency);
  // 0 is read (a transfer of nothing: acknowledged, never credited, by callbacks.ts); a negative or fractional amount is not one.
  if (!reference || !accountNumber || !currency || typeof data.amount !== 'number' || !Number.isSafeInteger(data.amount) || data.amount < 0) return undefined;
  return {
    providerReference: reference,
    accountNumber,
    amount: data.amount,
    currency: currency.toUpperCase(),
    paidAt: text(data.paid_at) ?? text(data.paidAt),
    senderName: text(authorization.sender_name)?.slice(0, 120),
    senderBank: text(authorization.sender_bank)?.slice(0, 120),
    narration: text(authorization.narration)?.slice(0, 200),
  };
}

export function virtualAccounts(client: PaystackClient, deps: Pick<RailAdapterDeps, 'log'>): VirtualAccountProvider {
  const fail = (what: string, answer: { httpStatus: number; body: { status: boolean; message: string } }) =>
    new PaystackUnavailable(`Paystack ${what} answered ${answer.httpStatus}: ${paystackMessage(answer.body)}`);

  async function customer(request: VirtualAccountRequest): Promise<{ id: number; code: string }> {
    const answer = await client.post('/customer', {
      email: walletEmail(request.walletId),
      first_name: request.firstName.slice(0, 60),
      last_name: request.lastName.slice(0, 60),
      ...(request.phone ? { phone: request.phone } : {}),
    });
    const data = answer.body.data;
    if (answer.httpStatus === 200 && answer.body.status && isObject(data) && typeof data.id === 'number' && text(data.customer_code)) return { id: data.id, code: text(data.customer_code)! };
    throw fail('POST /customer', answer);
  }

  async function preferredBank(): Promise<string> {
    const answer = await client.get('/dedicated_account/available_providers');
    const list = Array.isArray(answer.body.data) ? answer.body.data : [];
    const slug = list.map((entry) => (isObject(entry) ? text(entry.provider_slug) : undefined)).find((found) => found !== undefined);
    if (answer.httpStatus === 200 && answer.body.status && slug) return slug;
    throw fail('GET /dedicated_account/available_providers', answer);
  }

  async function existing(customerId: number, currency: string): Promise<VirtualAccountDetails | undefined> {
    const answer = await client.get('/dedicated_account', { customer: customerId, currency, active: true });
    if (answer.httpStatus !== 200 || !answer.body.status || !Array.isArray(answer.body.data)) throw fail('GET /dedicated_account', answer);
    for (const entry of answer.body.data) {
      const account = accountOf(entry);
      if (account && isObject(entry) && (entry.currency === undefined || entry.currency === currency)) return account;
    }
    return undefined;
  }

  async function open(request: VirtualAccountRequest): Promise<VirtualAccountDetails> {
    if (!(DVA_CURRENCIES as readonly string[]).includes(request.currency)) throw new PaystackUnavailable(`Paystack makes dedicated virtual accounts in ${DVA_CURRENCIES.join(' and ')} only`);
    const owner = await customer(request);
    // Made before (a retry after a lost answer): the same account, never a second one.
    const found = await existing(owner.id, request.currency);
    if (found) return { ...found, providerCustomer: owner.code };
    const answer = await client.post('/dedicated_account', { customer: owner.code, preferred_bank: await preferredBank() });
    // The request names no currency: the integration's country decides it. An account in another
    // currency than asked (a GHS wallet on a Nigerian integration) would take money no wallet of
    // this currency can be credited with, so it is not the wallet's.
    const made = isObject(answer.body.data) ? text(answer.body.data.currency)?.toUpperCase() : undefined;
    if (made !== undefined && made !== request.currency) throw new PaystackUnavailable(`Paystack made a ${made.slice(0, 8)} account, not ${request.currency}: this integration does not make ${request.currency} accounts`);
    const account = answer.httpStatus === 200 && answer.body.status ? accountOf(answer.body.data) : undefined;
    if (!account) {
      // Refused, or unreadable: a request at the same moment may have made it (two taps, two
      // servers). That account is the wallet's; only when there is none is it a failure.
      const made = await existing(owner.id, request.currency);
      if (made) return { ...made, providerCustomer: owner.code };
      throw fail('POST /dedicated_account', answer);
    }
    deps.log('paystack dedicated virtual account made', { walletId: request.walletId, bank: account.bankName });
    return { ...account, providerCustomer: owner.code };
  }

  async function requery(account: { accountNumber: string; bankSlug?: string | undefined }, day: string): Promise<void> {
    const answer = await client.get('/dedicated_account/requery', { account_number: account.accountNumber, provider_slug: account.bankSlug, date: day });
    if (answer.httpStatus !== 200 || !answer.body.status) throw fail('GET /dedicated_account/requery', answer);
  }

  return { currencies: DVA_CURRENCIES, open, requery };
}
