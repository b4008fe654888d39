import type { PrincipalKind } from '../auth/principal.ts';

/**
 * The API's credentials (docs/api-conventions.md) as OpenAPI security schemes. A merchant key is accepted in two
 * headers, so it is two schemes; the bearer tokens are told apart by their prefix, which OpenAPI
 * cannot express, so each prefix is a scheme of its own with its format in `bearerFormat`.
 */
export const SECURITY_SCHEMES = {
  merchantKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-merchant-api-key',
    description: 'A secret merchant key, mk_test_ (sandbox) or mk_live_ followed by 64 lower-case hex characters. Servers only.',
  },
  merchantBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'mk_test_<64 hex> | mk_live_<64 hex>',
    description: 'The same merchant key as `Authorization: Bearer mk_...`.',
  },
  dashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'tapline_session',
    description: 'A merchant dashboard session (POST /api/dashboard/sessions): the merchant, in the mode of the x-tapline-mode header (test by default); calls that change something also send x-csrf-token, and the user\'s role (owner, manager, viewer) limits what it may do.',
  },
  terminalToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'term.<64 hex>',
    description: 'A kiosk terminal token from POST /api/merchant/terminals: POS, offline payments and gift-card verify and redeem.',
  },
  walletToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'wallet.<64 hex>',
    description: 'A wallet holder\'s session token from POST /api/wallet/sessions {handle, pin}.',
  },
  agentToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'agent.<64 hex>',
    description: 'An agent\'s session token from POST /api/agent/sessions {agentId, secret}.',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pk_test_<32 hex> | pk_live_<32 hex>',
    description: 'A publishable key for web pages (the checkout drop-in); only the checkout session routes accept it.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'admin.<token>',
    description: 'The operator\'s admin token (ADMIN_TOKEN, or the one printed at first start).',
  },
} as const;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

const SCHEMES_OF_KIND: Record<PrincipalKind, readonly SecuritySchemeName[]> = {
  merchant: ['merchantKey', 'merchantBearer', 'dashboardSession'],
  terminal: ['terminalToken'],
  wallet: ['walletToken'],
  agent: ['agentToken'],
  publishable: ['publishableKey'],
  admin: ['adminToken'],
};

/** Routes that check their credential themselves instead of declaring config.auth. */
const OWN_CHECKS: Readonly<Record<string, readonly PrincipalKind[]>> = {
  'GET /metrics': ['admin'],
};

/** The credential kinds a route accepts: its `config.auth`, or its own check; undefined: public. */
export function credentialKindsOf(method: string, url: string, auth: readonly PrincipalKind[] | undefined): readonly PrincipalKind[] | undefined {
  return auth ?? OWN_CHECKS[`${method} ${url}`];
}

/** The security requirement of an operation: any one of the schemes of its kinds; a public route requires nothing (an empty list). */
export function securityFor(kinds: readonly PrincipalKind[] | undefined): Record<string, string[]>[] {
  return (kinds ?? []).flatMap((kind) => SCHEMES_OF_KIND[kind].map((scheme) => ({ [scheme]: [] })));
}
