// Which provider pays a live payment: a table of (rail, recipient country) to an ordered list of
// providers, the first one configured and able to pay it wins. The defaults follow where each
// provider is strongest (M-Pesa in Kenya, MTN MoMo where MTN runs mobile money, Paystack for the
// banks it settles to and next for mobile money in GH and KE, Flutterwave elsewhere); RAIL_ROUTES
// overrides any entry. The mobile_money order is also the order in which a till's collection
// (or a wallet top-up) looks for a provider that collects (modules/collections), skipping the ones
// whose collectsIn says no: M-Pesa in KE, MoMo in its markets, Paystack in GH and KE, Flutterwave
// in KE, GH, UG, RW, ZM, TZ, CM, SN, CI and ML (rails/flutterwave/charges.ts). Flutterwave is last
// everywhere, so it collects where no other collector is configured (docs/till.md has the table).
import { currencyOfCountry } from '@tapline/shared/countries';
import { RAIL_INFO, type Rail, isRail } from '../modules/payments/index.ts';
import { RAIL_PROVIDERS, type RailProviderName } from './types.ts';

/** A route's key: a rail and a recipient country, or `*` for every country of the rail. */
export type RouteKey = `${Rail}:${string}`;
export type RouteTable = ReadonlyMap<RouteKey, readonly RailProviderName[]>;

/** The rails a provider adapter can pay out on; the others (wallet, qr, card...) never leave Tapline. */
export const PROVIDER_RAILS: readonly Rail[] = ['mobile_money', 'bank_transfer', 'cash_pickup'];

/** Countries where MTN runs MoMo (the Open API's markets). */
const MTN_MOMO = ['UG', 'GH', 'CM', 'RW', 'CI', 'BJ', 'CG', 'ZM', 'GN', 'LR', 'SZ', 'GW'];
/** Countries whose banks Paystack pays into. */
const PAYSTACK_BANKS = ['NG', 'GH', 'ZA', 'KE'];

/** The documented defaults (README "Live payouts"); every other rail and country falls back to `*`. */
export const DEFAULT_ROUTES: RouteTable = new Map<RouteKey, readonly RailProviderName[]>([
  // Paystack also collects (Charge API) in GH and KE, after M-Pesa and MoMo (rails/paystack/operators.ts).
  ['mobile_money:KE', ['mpesa', 'paystack', 'flutterwave']],
  ...MTN_MOMO.map((country) => [`mobile_money:${country}` as RouteKey, ['momo', 'flutterwave'] as const] as const),
  ['mobile_money:GH', ['momo', 'paystack', 'flutterwave']],
  ['mobile_money:*', ['flutterwave']],
  ...PAYSTACK_BANKS.map((country) => [`bank_transfer:${country}` as RouteKey, ['paystack', 'flutterwave'] as const] as const),
  ['bank_transfer:*', ['flutterwave']],
  // cash_pickup: no provider by default. None of the adapters can pay it (Flutterwave v3's transfers
  // offer no cash pickup our receiver fits: flutterwave/destinations.ts), so it is paid by Tapline's
  // own agent network (modules/cash-pickup), which app.ts puts after these providers.
]);

export class RouteConfigError extends Error {}

/**
 * RAIL_ROUTES: entries separated by `;`, each `<rail>:<COUNTRY or *>=<provider>[,<provider>...]`,
 * e.g. `mobile_money:KE=flutterwave;bank_transfer:*=flutterwave,paystack`. An entry replaces the
 * default of its key; the rest of the table stays.
 */
export function parseRoutes(text: string | undefined, base: RouteTable = DEFAULT_ROUTES): RouteTable {
  const table = new Map(base);
  if (!text?.trim()) return table;
  for (const raw of text.split(';')) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = /^([a-z_]+):([A-Za-z]{2}|\*)=([a-z, ]+)$/.exec(entry);
    if (!match) throw new RouteConfigError(`RAIL_ROUTES entry ${JSON.stringify(entry)} must read <rail>:<COUNTRY or *>=<provider>[,<provider>...]`);
    const [, rail, country, list] = match as unknown as [string, string, string, string];
    if (!isRail(rail) || !PROVIDER_RAILS.includes(rail)) throw new RouteConfigError(`RAIL_ROUTES: ${rail} is not a rail providers pay out on (${PROVIDER_RAILS.join(', ')})`);
    const upper = country.toUpperCase();
    if (upper !== '*' && !RAIL_INFO[rail].countries.includes(upper)) throw new RouteConfigError(`RAIL_ROUTES: ${rail} is not offered in ${upper}`);
    const providers = list.split(',').map((name) => name.trim()).filter(Boolean);
    for (const name of providers) {
      if (!(RAIL_PROVIDERS as readonly string[]).includes(name)) throw new RouteConfigError(`RAIL_ROUTES: unknown provider ${JSON.stringify(name)} (one of ${RAIL_PROVIDERS.join(', ')})`);
    }
    table.set(`${rail}:${upper}`, providers as RailProviderName[]);
  }
  return table;
}

/** The providers that may pay (rail, country), in order of preference. */
export function providersFor(table: RouteTable, rail: Rail, country: string): readonly RailProviderName[] {
  if (!PROVIDER_RAILS.includes(rail) || !RAIL_INFO[rail].countries.includes(country)) return [];
  return table.get(`${rail}:${country}`) ?? table.get(`${rail}:*`) ?? [];
}

/** The table written out for people: one line per rail and country with the currency paid. */
export function describeRoutes(table: RouteTable): { rail: Rail; country: string; currency: string | null; providers: readonly RailProviderName[] }[] {
  return PROVIDER_RAILS.flatMap((rail) =>
    RAIL_INFO[rail].countries.map((country) => ({ rail, country, currency: currencyOfCountry(country) ?? null, providers: providersFor(table, rail, country) })),
  );
}
