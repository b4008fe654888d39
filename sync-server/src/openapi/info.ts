/** The document's front matter: what the API is, its areas (tags), whom to ask, on what terms. */

export const API_VERSION = '0.1.0';

/**
 * What the document adds to the server's own description (app.ts): where the SDKs and the
 * conventions are, and the rules every client meets, stated once for the whole API.
 */
export const API_GUIDE = `SDKs: @tapline/sdk (TypeScript, sdk/typescript) and tapline (Python, sdk/python); the conventions below
are written out in the repository's docs/api-conventions.md.

Credentials: merchant keys mk_test_ (sandbox) and mk_live_ in x-merchant-api-key or Authorization: Bearer;
wallet., agent., term. and admin. bearer tokens; each operation states the ones it accepts (security). The
mode (test or live) comes from the credential.

Idempotency-Key (1..255 characters) is required on POST /api/pay and POST /api/payroll and honoured where an
operation lists it: the first answer is replayed with Idempotent-Replayed: true, another body with the same
key is a 422 idempotency_key_reused, and a request still running is a 409 idempotency_in_progress (retry
shortly).

Rate limits per 60-second window: /api/pay 120, /api/payments/* 300 and /api/bills/* 60 per
credential (the API key, else the token, else the client IP), /api/fx/* 600 per client IP, every other /api
route 120 per credential.

Webhooks: x-service-signature is the lower-case hex HMAC-SHA256 of the raw body keyed with the merchant's
webhook secret (POS callbacks: sha256=<hex>); retries after 1 min, 5 min, 30 min, 2 h and 24 h carry the same
event id.`;

/** Every tag the routes use, with what it covers; the order is the order of the reference. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'payments', description: 'Payouts over a rail (POST /api/pay with an Idempotency-Key) and their status.' },
  { name: 'pos', description: 'Point-of-sale sessions: open one for an amount, a customer\'s tag tap pays it, poll or receive the callback.' },
  { name: 'products', description: 'The merchant\'s catalogue: what its kiosks sell, with prices, taxes and stock; replicated to the kiosks.' },
  { name: 'till', description: 'The till: staff who sign in with a personal PIN (offline too) and the cashier shifts they run, with the blind count and its variance (docs/till.md).' },
  { name: 'checkout', description: 'The checkout drop-in\'s sessions and the publishable keys web pages use.' },
  { name: 'rails', description: 'Callbacks from payment providers (Paystack, Flutterwave, Safaricom Daraja, MTN MoMo): public, verified by each provider\'s signature or an unguessable per-request address. Not for merchants.' },
  { name: 'wearables', description: 'NFC tags (rings, bands, cards) linked to a wallet; the public resolve of a tap.' },
  { name: 'fx', description: 'Exchange rates and quotes.' },
  { name: 'bills', description: 'Airtime, electricity and TV bills in NG, GH and KE.' },
  { name: 'payment-links', description: 'Shareable links a customer pays from a web page.' },
  { name: 'pay-identity', description: 'What an @handle resolves to: its destinations and preferred rail.' },
  { name: 'gift-cards', description: 'Gift cards issued from a wallet, verified publicly, redeemed into a wallet; programs and cashback rules.' },
  { name: 'subscriptions', description: 'Monthly plans, subscriptions and their charges.' },
  { name: 'payroll', description: 'Paying up to 500 people from the merchant\'s wallet in one run.' },
  { name: 'offline', description: 'Offline QR vouchers, offline payments settled from terminals, terminals\' offline limits.' },
  { name: 'store', description: 'The store: products, checkout by wallet PIN or gift card, orders, reviews, flash sales.' },
  { name: 'payouts', description: 'Merchant payouts (settlement): settlement accounts, the available balance and its hold, payouts on a schedule or on demand with their statements, CSV (docs/payouts.md).' },
  { name: 'merchant', description: 'The merchant\'s own account: keys, webhook settings, balance, kiosk terminals.' },
  { name: 'dashboard', description: 'The merchant dashboard\'s people: set-up and invitation links, sign-in, cookie sessions with CSRF tokens, TOTP, the team and its roles.' },
  { name: 'webhooks', description: 'Webhook deliveries, their attempts, and redelivery.' },
  { name: 'wallet', description: 'A wallet holder\'s session, balance, tags and payments.' },
  { name: 'agent', description: 'Agent sessions and balance.' },
  { name: 'admin', description: 'Operator calls with the admin token: provisioning, store administration, gift-card oversight.' },
  { name: 'health', description: 'Liveness, readiness and metrics.' },
];

/** Where developers write to; the README and docs/ give the same address. */
export const SUPPORT_EMAIL = 'developers@tapline.africa';

/** The path at which the server serves the repository's LICENSE file (register.ts). */
export const LICENSE_PATH = '/docs/license';

/** The API is proprietary (the repository's LICENSE: all rights reserved, Tapline); the server serves that file. */
export function licenseOf(publicBaseUrl: string): { name: string; url: string } {
  return { name: 'Proprietary: all rights reserved, Tapline (LICENSE)', url: `${publicBaseUrl}${LICENSE_PATH}` };
}

export function contactOf(publicBaseUrl: string): { name: string; email: string; url: string } {
  return { name: 'Tapline developer support', email: SUPPORT_EMAIL, url: `${publicBaseUrl}/docs` };
}
