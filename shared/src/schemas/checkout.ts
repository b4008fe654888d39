import { Type } from 'typebox';
import { CountryCode, CurrencyCode, HandleInput, MajorAmount, Mode, Pin, Timestamp, literalUnion } from './common.ts';
import { DESCRIPTION_LENGTH_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

/** Publishable keys: what the browser drop-in (/sdk/service.js) authenticates with. */
export const PUBLISHABLE_KEY_PATTERN = '^pk_(test|live)_[0-9a-f]{32}$';

export const CreatePublishableKeyBody = Type.Object({
  allowedOrigins: Type.Optional(
    Type.Array(Type.String({ pattern: '^https?://[^/?#\\s]+$', maxLength: 200 }), {
      minItems: 1,
      maxItems: 20,
      description: 'Web origins (scheme://host[:port]) whose pages may use the key; absent: any origin. A browser request from another Origin is a 403.',
    }),
  ),
});

export const PublishableKeyRecord = Type.Object({
  id: Type.String({ description: 'pkey_...' }),
  keyHint: Type.String({ description: 'pk_test_ or pk_live_, then the last four characters: the key itself is shown once' }),
  mode: Mode,
  allowedOrigins: Type.Union([Type.Array(Type.String()), Type.Null()]),
  createdAt: Timestamp,
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});

export const CreatePublishableKeyResponse = Type.Object({
  id: Type.String({ description: 'pkey_...' }),
  key: Type.String({ pattern: PUBLISHABLE_KEY_PATTERN, description: 'pk_test_ or pk_live_ + 32 lower-case hex; shown once, stored as SHA-256' }),
  keyHint: Type.String(),
  mode: Mode,
  allowedOrigins: Type.Optional(Type.Array(Type.String())),
  createdAt: Timestamp,
});

export const CHECKOUT_SESSION_STATUSES = ['open', 'paid', 'failed', 'expired'] as const;
/** The rails the drop-in may offer, besides paying from a Tapline wallet. */
export const CHECKOUT_RAILS = ['mobile_money', 'bank_transfer', 'qr'] as const;
export const CHECKOUT_PAYMENT_METHODS = ['wallet', 'mobile_money', 'bank_transfer'] as const;

export const CreateCheckoutSessionBody = Type.Object({
  amount: MajorAmount,
  currency: CurrencyCode,
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: REFERENCE_LENGTH_MAX, description: 'Your order reference, echoed in events. Test mode: test_failure makes a mobile money or bank transfer collection fail' })),
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  customerCountry: Type.Optional(CountryCode),
});

export const CheckoutSession = Type.Object({
  id: Type.String({ description: 'cs_...' }),
  status: literalUnion(CHECKOUT_SESSION_STATUSES, { description: 'open -> paid | failed | expired (30 minutes after creation)' }),
  mode: Mode,
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  country: Type.String({ description: 'The customer\'s country: customerCountry, else the CF-IPCountry / X-Country header, else the merchant\'s' }),
  rails: Type.Array(literalUnion(CHECKOUT_RAILS), { description: 'Rails offered in that country; paying from a Tapline wallet is always offered' }),
  url: Type.String({ description: '{base_url}/pay/checkout/<id>: the page a scanned QR code opens' }),
  qrPayload: Type.String({ description: 'The text of the session\'s QR code (its url)' }),
  merchant: Type.Object({ name: Type.String(), handle: Type.String() }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Type.Optional(Timestamp),
  paymentMethod: Type.Optional(literalUnion(CHECKOUT_PAYMENT_METHODS)),
  payerHandle: Type.Optional(Type.String()),
  transferId: Type.Optional(Type.String({ description: 'The ledger transfer that paid the session' })),
  failureReason: Type.Optional(Type.String()),
});

export const PayCheckoutSessionBody = Type.Object({
  method: literalUnion(CHECKOUT_PAYMENT_METHODS),
  handle: Type.Optional(HandleInput),
  pin: Type.Optional(Pin),
  phone: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{7,15}$', description: 'mobile_money: the wallet\'s phone number, E.164 digits' })),
  accountNumber: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{6,34}$', description: 'bank_transfer: the payer\'s account number' })),
});
