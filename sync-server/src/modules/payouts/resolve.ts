// Who the holder of a bank account is, before the merchant may be paid into it: the provider's
// account resolve where one is configured for the account's country (Paystack GET /bank/resolve in
// NG), the sandbox in test mode, else nobody (the name the merchant typed, marked so).
import { ApiError, unprocessable } from '../../http/errors.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { Rails } from '../../rails/index.ts';

/** The adapters that can name an account's holder (Paystack's, rails/paystack). */
interface AccountResolver {
  resolveAccount(accountNumber: string, bankCode: string): Promise<{ accountName: string } | undefined>;
}

function isResolver(adapter: unknown): adapter is AccountResolver {
  return typeof (adapter as Partial<AccountResolver> | undefined)?.resolveAccount === 'function';
}

/** Countries where a configured Paystack resolves account names (its /bank/resolve is for Nigerian NUBANs). */
const RESOLVE_COUNTRIES = new Set(['NG']);

/** The sandbox's accounts that do not resolve: the number ends in 0009. */
export const SANDBOX_UNRESOLVABLE_SUFFIX = '0009';

export interface ResolvedName {
  name: string;
  source: 'provider' | 'sandbox' | 'merchant';
}

/**
 * The account holder's name, or 422 account_not_resolved when the provider (or the sandbox) cannot
 * find the account, 422 account_name_required where nobody resolves it and the merchant gave none,
 * 503 account_resolve_unavailable when the provider cannot be asked now (try again).
 */
export async function resolveBankAccount(rails: Rails, mode: Mode, account: { country: string; bankCode: string; accountNumber: string; givenName: string | undefined }): Promise<ResolvedName> {
  if (mode === 'test') {
    if (account.accountNumber.endsWith(SANDBOX_UNRESOLVABLE_SUFFIX)) throw unprocessable('account_not_resolved', `The bank could not find account ${mask(account.accountNumber)} at bank ${account.bankCode} (sandbox: numbers ending ${SANDBOX_UNRESOLVABLE_SUFFIX})`);
    return { name: account.givenName?.trim() || `Sandbox Account ${account.accountNumber.slice(-4)}`, source: 'sandbox' };
  }
  const paystack = rails.adapters.get('paystack');
  if (RESOLVE_COUNTRIES.has(account.country) && isResolver(paystack)) {
    let resolved: { accountName: string } | undefined;
    try {
      resolved = await paystack.resolveAccount(account.accountNumber, account.bankCode);
    } catch {
      // The provider's words may echo the number: they stay out of the answer (and the logs).
      throw new ApiError(503, 'account_resolve_unavailable', 'The bank account could not be checked with the provider just now; try again in a minute', { headers: { 'retry-after': '30' } });
    }
    if (!resolved) throw unprocessable('account_not_resolved', `The bank could not find account ${mask(account.accountNumber)} at bank ${account.bankCode}: check the number and the bank`);
    return { name: resolved.accountName, source: 'provider' };
  }
  const name = account.givenName?.trim();
  if (!name) throw unprocessable('account_name_required', `No provider resolves ${account.country} bank accounts here: send accountName, the holder's name as the bank has it`);
  return { name, source: 'merchant' };
}

/** An account number as answers and messages show it: the last four digits. */
export function mask(accountNumber: string): string {
  return `${'•'.repeat(Math.max(accountNumber.length - 4, 0))}${accountNumber.slice(-4)}`;
}
