// Where MTN MoMo can pay: the operator markets of the Open API and the currency each pays in.
//
// The vendored documents (vendor/momo/) do not list the markets: they name only the sandbox
// (target environment `sandbox`, currency EUR; testing.md) and MTN Uganda (the copyright line).
// The list below is the set of `X-Target-Environment` values MTN's developer portal publishes
// for its MoMo Open API markets (as repeated by the community clients of the same author as the
// documents), plus MTN Rwanda (its own portal, momodeveloper.mtn.co.rw), each with the ISO 4217
// currency of the country. It is this adapter's documented list; extend it here when MTN opens a
// market.

export interface MomoMarket {
  country: string;
  currency: string;
  targetEnvironment: string;
}

export const MOMO_MARKETS: readonly MomoMarket[] = [
  { country: 'UG', currency: 'UGX', targetEnvironment: 'mtnuganda' },
  { country: 'GH', currency: 'GHS', targetEnvironment: 'mtnghana' },
  { country: 'CI', currency: 'XOF', targetEnvironment: 'mtnivorycoast' },
  { country: 'ZM', currency: 'ZMW', targetEnvironment: 'mtnzambia' },
  { country: 'CM', currency: 'XAF', targetEnvironment: 'mtncameroon' },
  { country: 'BJ', currency: 'XOF', targetEnvironment: 'mtnbenin' },
  { country: 'CG', currency: 'XAF', targetEnvironment: 'mtncongo' },
  { country: 'SZ', currency: 'SZL', targetEnvironment: 'mtnswaziland' },
  { country: 'GN', currency: 'GNF', targetEnvironment: 'mtnguineaconakry' },
  { country: 'ZA', currency: 'ZAR', targetEnvironment: 'mtnsouthafrica' },
  { country: 'LR', currency: 'LRD', targetEnvironment: 'mtnliberia' },
  { country: 'RW', currency: 'RWF', targetEnvironment: 'mtnrwanda' },
];

/** testing.md: "The Target Environment used in Testing is sandbox"; "The currency used in Sandbox is EUR". */
export const SANDBOX_ENVIRONMENT = 'sandbox';
export const SANDBOX_CURRENCY = 'EUR';

/**
 * The markets one configuration can reach. An operator's target environment (e.g. `mtnuganda`)
 * is one country's wallet platform: API users and keys are per country (api-description.md:
 * "grant access to the wallet system in a specific country"), so it pays that country only. The
 * sandbox, and an environment this list does not know, may be asked for any listed market.
 */
export function marketsFor(targetEnvironment: string): readonly MomoMarket[] {
  const pinned = MOMO_MARKETS.filter((market) => market.targetEnvironment === targetEnvironment);
  return pinned.length > 0 ? pinned : MOMO_MARKETS;
}

export function marketOf(targetEnvironment: string, country: string): MomoMarket | undefined {
  return marketsFor(targetEnvironment).find((market) => market.country === country);
}

/**
 * The currencies MoMo takes for a payment to or from `country` in this environment: the
 * country's own currency; in the sandbox also EUR (the sandbox's test currency).
 */
export function currenciesFor(targetEnvironment: string, country: string): readonly string[] {
  const market = marketOf(targetEnvironment, country);
  if (!market) return [];
  return targetEnvironment === SANDBOX_ENVIRONMENT ? [market.currency, SANDBOX_CURRENCY] : [market.currency];
}
