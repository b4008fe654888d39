// Paystack's bank list (GET /bank) and account resolve (GET /bank/resolve): the adapter's
// `banks(country)` and `resolveAccount(accountNumber, bankCode)`, and the mobile money operators
// a `mobile_money` recipient names as its bank_code.
import { type PaystackClient, PaystackUnavailable } from './client.ts';
import { paystackCountry } from './countries.ts';

export interface PaystackBank {
  name: string;
  /** What a transfer recipient's `bank_code` takes. */
  code: string;
  slug: string;
  /** The bank list's channel type: nuban, ghipss, basa, kepss, mobile_money... */
  type: string;
  currency: string;
  active: boolean;
  supportsTransfer: boolean;
}

export interface ResolvedAccount {
  accountNumber: string;
  accountName: string;
}

export interface BankDirectory {
  /** Every bank (and mobile money operator) Paystack lists for a country (ISO code); [] where Paystack pays no one. */
  banks(country: string): Promise<PaystackBank[]>;
  /** The mobile money operators of a country, cached for an hour. */
  operators(country: string): Promise<PaystackBank[]>;
  /** The account's name as its bank has it; undefined when Paystack cannot resolve it. */
  resolveAccount(accountNumber: string, bankCode: string): Promise<ResolvedAccount | undefined>;
}

// The list is paged (perPage, page: openapi.yaml /bank); a page shorter than asked is the last.
const PER_PAGE = 100;
const PAGES_MAX = 50;
const OPERATORS_TTL_MS = 60 * 60_000;

function readBank(value: unknown): PaystackBank | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const bank = value as Record<string, unknown>;
  if (typeof bank.code !== 'string' || typeof bank.name !== 'string') return undefined;
  return {
    name: bank.name,
    code: bank.code,
    slug: typeof bank.slug === 'string' ? bank.slug : '',
    type: typeof bank.type === 'string' ? bank.type : '',
    currency: typeof bank.currency === 'string' ? bank.currency : '',
    active: bank.active !== false,
    supportsTransfer: bank.supports_transfer !== false,
  };
}

export function bankDirectory(client: PaystackClient, now: () => Date): BankDirectory {
  const cache = new Map<string, { at: number; operators: PaystackBank[] }>();

  async function list(query: Record<string, string>): Promise<PaystackBank[]> {
    const banks: PaystackBank[] = [];
    for (let page = 1; page <= PAGES_MAX; page += 1) {
      const answer = await client.get('/bank', { ...query, perPage: PER_PAGE, page });
      if (answer.httpStatus !== 200 || !answer.body.status || !Array.isArray(answer.body.data)) {
        throw new PaystackUnavailable(`Paystack GET /bank answered ${answer.httpStatus}: ${answer.body.message}`);
      }
      for (const item of answer.body.data) {
        const bank = readBank(item);
        if (bank) banks.push(bank);
      }
      if (answer.body.data.length < PER_PAGE) break;
    }
    return banks;
  }

  return {
    async banks(countryCode) {
      const country = paystackCountry(countryCode);
      return country ? list({ country: country.bankListCountry }) : [];
    },
    async operators(countryCode) {
      const country = paystackCountry(countryCode);
      if (!country?.mobileMoneyCallingCode) return [];
      const cached = cache.get(countryCode);
      if (cached && now().getTime() - cached.at < OPERATORS_TTL_MS) return cached.operators;
      const operators = (await list({ currency: country.currency, type: 'mobile_money' })).filter((bank) => bank.active);
      cache.set(countryCode, { at: now().getTime(), operators });
      return operators;
    },
    async resolveAccount(accountNumber, bankCode) {
      const answer = await client.get('/bank/resolve', { account_number: accountNumber, bank_code: bankCode });
      if (answer.httpStatus === 200 && answer.body.status) {
        const data = answer.body.data as { account_number?: unknown; account_name?: unknown } | undefined;
        if (typeof data?.account_name === 'string') {
          return { accountNumber: typeof data.account_number === 'string' ? data.account_number : accountNumber, accountName: data.account_name };
        }
        throw new PaystackUnavailable('Paystack GET /bank/resolve answered 200 without an account name');
      }
      // "Could not resolve account name. Check parameters or try again." (api-errors.json, Verification)
      if (answer.httpStatus >= 400 && answer.httpStatus < 500) return undefined;
      throw new PaystackUnavailable(`Paystack GET /bank/resolve answered ${answer.httpStatus}: ${answer.body.message}`);
    },
  };
}

/** The operator a receiver's `provider` names (its code, slug or name, or the start of its name); the only one when there is one and none is named. */
export function findOperator(operators: readonly PaystackBank[], provider: string | undefined): PaystackBank | undefined {
  const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (!provider) return operators.length === 1 ? operators[0] : undefined;
  const wanted = normalise(provider);
  if (!wanted) return undefined;
  const exact = operators.filter((op) => [op.code, op.slug, op.name].some((field) => normalise(field) === wanted));
  if (exact.length === 1) return exact[0];
  const starts = operators.filter((op) => normalise(op.name).startsWith(wanted));
  return starts.length === 1 ? starts[0] : undefined;
}
