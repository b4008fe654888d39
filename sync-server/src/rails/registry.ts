// The configured rail adapters: built from the environment (a provider with missing variables is
// simply absent), given their callback tokens, and routed by the route table.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { BillerProvider } from '../modules/bills/index.ts';
import type { PayoutProvider, PayoutRequest, Rail } from '../modules/payments/index.ts';
import { type RouteTable, providersFor } from './routing.ts';
import type { RailAdapter, RailAdapterDeps, RailAdapterModule, RailProviderName } from './types.ts';

/** How long one request to a provider may take before its outcome counts as unknown (RAIL_TIMEOUT_MS). */
export const RAIL_TIMEOUT_MS_DEFAULT = 20_000;

export interface Rails {
  /** Every configured adapter, by name. */
  readonly adapters: ReadonlyMap<RailProviderName, RailAdapter>;
  /** The payment scheduler's providers: each one `supports` exactly the routes it wins. */
  readonly payoutProviders: readonly PayoutProvider[];
  /** Live bill payments of the configured providers that offer them. */
  readonly billerProviders: readonly BillerProvider[];
  /** The provider that pays (rail, country) now: the first configured one of its route. */
  providerFor(rail: Rail, country: string): RailAdapter | undefined;
  readonly routes: RouteTable;
}

export interface RailsOptions {
  env: Readonly<Record<string, string | undefined>>;
  modules: readonly RailAdapterModule[];
  routes: RouteTable;
  publicBaseUrl: string;
  /** The server's secrets key: callback tokens are keyed with a key derived from it. */
  secretsKey: Buffer;
  timeoutMs?: number;
  now: () => Date;
  log: RailAdapterDeps['log'];
  fetch?: typeof fetch;
}

/**
 * Per-request callback tokens: HMAC-SHA256 of `purpose:id` under a key derived from the secrets
 * key (HKDF, its own label), base64url. Nothing is stored; a token names one request only.
 */
export function callbackTokens(secretsKey: Buffer): Pick<RailAdapterDeps, 'callbackToken' | 'verifyCallbackToken'> {
  const key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'tapline rail callback tokens', 32));
  const token = (purpose: string, id: string) => createHmac('sha256', key).update(`${purpose}:${id}`).digest('base64url');
  return {
    callbackToken: token,
    verifyCallbackToken(purpose, id, candidate) {
      const expected = Buffer.from(token(purpose, id));
      const given = Buffer.from(typeof candidate === 'string' ? candidate : '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export function createRails(options: RailsOptions): Rails {
  const deps: RailAdapterDeps = {
    publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ''),
    ...callbackTokens(options.secretsKey),
    fetch: options.fetch ?? ((...args) => globalThis.fetch(...args)),
    timeoutMs: options.timeoutMs ?? RAIL_TIMEOUT_MS_DEFAULT,
    now: options.now,
    log: options.log,
  };
  const adapters = new Map<RailProviderName, RailAdapter>();
  const billerProviders: BillerProvider[] = [];
  for (const module of options.modules) {
    const config = module.configFromEnv(options.env);
    if (config === undefined) continue;
    adapters.set(module.name, module.create(config, deps));
    if (module.createBiller) billerProviders.push(module.createBiller(config, deps));
  }
  const providerFor = (rail: Rail, country: string) =>
    providersFor(options.routes, rail, country)
      .map((name) => adapters.get(name))
      .find((adapter) => adapter?.supports(rail, country));
  // The scheduler finds a payment's provider by name and a new payment's by supports(): routed here.
  const payoutProviders: PayoutProvider[] = [...adapters.values()].map((adapter) => ({
    name: adapter.name,
    supports: (rail, country) => providerFor(rail, country) === adapter,
    submit: (request) => adapter.submit(request),
    poll: (request, reference) => adapter.poll(request, reference),
    lookup: (request) => adapter.lookup(request),
    ...(adapter.watchAfterCompletionMs ? { watchAfterCompletionMs: adapter.watchAfterCompletionMs } : {}),
    ...(adapter.refuseAmount ? { refuseAmount: (amount: number, currency: string) => adapter.refuseAmount!(amount, currency) } : {}),
    ...(adapter.needsSender ? { needsSender: (request: PayoutRequest) => adapter.needsSender!(request) } : {}),
  }));
  return { adapters, payoutProviders, billerProviders, providerFor, routes: options.routes };
}
