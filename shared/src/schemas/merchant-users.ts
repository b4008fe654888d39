import { type Static, Type } from 'typebox';
import { ListQuery, Mode, Nullable, Timestamp, literalUnion } from './common.ts';
import { EMAIL_LENGTH_MAX, PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN } from '../limits.ts';

/** The dashboard roles: owner (everything), manager (everything but keys and users), viewer (read-only). */
export const MERCHANT_ROLES = ['owner', 'manager', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];
export const MerchantRoleSchema = literalUnion(MERCHANT_ROLES, { description: 'owner: everything; manager: everything but API keys, publishable keys, the webhook secret and users; viewer: read-only' });

export const Email = Type.String({ minLength: 3, maxLength: EMAIL_LENGTH_MAX, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'An e-mail address (compared in lower case)' });
export const Password = Type.String({ minLength: PASSWORD_LENGTH_MIN, maxLength: PASSWORD_LENGTH_MAX, description: '10 to 200 characters' });
export const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits an authenticator app shows' });

export const MerchantUserRecord = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: MerchantRoleSchema,
  status: literalUnion(['invited', 'active'] as const, { description: 'invited: the link has not been used yet' }),
  totpEnabled: Type.Boolean(),
  createdAt: Timestamp,
});

export const InviteUserBody = Type.Object({ email: Email, role: MerchantRoleSchema });
export const InviteUserResponse = Type.Object({
  ...MerchantUserRecord.properties,
  inviteUrl: Type.String({ description: 'The one-time link the person opens to choose a password (shown once)' }),
  inviteExpiresAt: Timestamp,
});
export const UpdateUserBody = Type.Object({ role: MerchantRoleSchema });

export const OwnerSetupBody = Type.Object({ email: Email });
export const OwnerSetupResponse = Type.Object({
  userId: Type.String(),
  email: Type.String(),
  role: MerchantRoleSchema,
  setupUrl: Type.String({ description: 'The one-time set-up link (shown once)' }),
  setupExpiresAt: Timestamp,
});

export const AcceptLinkBody = Type.Object({
  token: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The token of a set-up or invitation link' }),
  password: Password,
});
export const AcceptLinkResponse = Type.Object({ email: Type.String(), role: MerchantRoleSchema });

export const SignInBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: PASSWORD_LENGTH_MAX }), totpCode: Type.Optional(TotpCode) });

export const DashboardSession = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), role: MerchantRoleSchema, totpEnabled: Type.Boolean() }),
  merchant: Type.Object({ id: Type.String(), name: Type.String(), handle: Type.String(), currency: Type.String() }),
  mode: Mode,
  csrfToken: Type.String({ description: 'Send it as x-csrf-token on every call that changes something' }),
  expiresAt: Timestamp,
  idleExpiresAt: Timestamp,
});
export type DashboardSession = Static<typeof DashboardSession>;

export const TotpEnrolment = Type.Object({
  secret: Type.String({ description: 'Base32, for typing into an authenticator app' }),
  otpauthUri: Type.String(),
  qrPng: Type.String({ description: 'The otpauth URI as a QR code (PNG data URL) for an authenticator app to scan' }),
});
export const TotpCodeBody = Type.Object({ code: TotpCode });
export const TotpStatus = Type.Object({ totpEnabled: Type.Boolean() });

export const ApiKeyRecord = Type.Object({
  id: Type.String(),
  mode: Mode,
  prefix: Type.String({ description: 'The first 12 characters, to recognise the key' }),
  createdAt: Timestamp,
  expiresAt: Nullable(Timestamp),
  active: Type.Boolean({ description: 'false once its grace period has ended' }),
});

export const SalesDailyQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'How many UTC days, today included' })),
});
export const SalesDailyResponse = Type.Object({
  days: Type.Integer(),
  from: Type.String({ description: 'The first day (UTC), YYYY-MM-DD' }),
  currencies: Type.Array(
    Type.Object({
      currency: Type.String(),
      total: Type.Number({ description: 'Major units' }),
      count: Type.Integer(),
      daily: Type.Array(Type.Object({ date: Type.String(), amount: Type.Number({ description: 'Major units' }), count: Type.Integer() })),
    }),
  ),
});

/**
 * Every way a merchant is paid (GET /api/merchant/received): pos, a kiosk sale (a POS session paid
 * by a tap or on its wallet page); offline, a terminal's offline tap or QR voucher accepted when it
 * synced; checkout, the website drop-in; pay_page, a wallet holder paying the merchant's @handle
 * (/pay/<handle>); payment_link, a payment link paid; subscription, a subscription's period charged.
 */
export const RECEIVED_CHANNELS = ['pos', 'offline', 'checkout', 'pay_page', 'payment_link', 'subscription', 'mobile_money'] as const;
export type ReceivedChannel = (typeof RECEIVED_CHANNELS)[number];
export const ReceivedChannelSchema = literalUnion(RECEIVED_CHANNELS, {
  description: 'pos: a kiosk sale (POS session, by tap or the wallet page); offline: an offline tap or QR voucher a terminal took; checkout: the website drop-in; pay_page: a wallet paying the /pay/<handle> page; payment_link: a payment link; subscription: a subscription period charged',
});

export const ReceivedListQuery = Type.Object({
  ...ListQuery.properties,
  channel: Type.Optional(ReceivedChannelSchema),
});

export const ReceivedPayment = Type.Object({
  id: Type.String({ description: "The record's id in its channel: the POS session's (uuid), the offline payment's (uuid), cs_… (checkout), the transfer's (pay_page), pay_… (payment_link), the charge's (subscription)" }),
  channel: ReceivedChannelSchema,
  method: Type.String({ description: 'How the customer paid: tap or wallet (pos), tap or qr (offline), wallet, mobile_money or bank_transfer (checkout), wallet (pay_page, payment_link, subscription)' }),
  amount: Type.Number({ description: 'What the customer paid, major units' }),
  fee: Type.Number({ description: "Tapline's fee, major units (payment links' fee; 0 elsewhere)" }),
  net: Type.Number({ description: 'What reached the merchant: amount - fee, major units' }),
  currency: Type.String(),
  payerHandle: Nullable(Type.String({ description: '@handle of the paying wallet; null for a sandbox mobile-money or bank collection' })),
  reference: Nullable(Type.String({ description: "The POS session's description, the checkout's or link's reference, the pay page's note, the subscription's plan name" })),
  terminalId: Nullable(Type.String({ description: 'The terminal of a kiosk or offline sale, if any' })),
  transferId: Nullable(Type.String({ description: 'The ledger transfer that moved the money' })),
  receivedAt: Timestamp,
});
export type ReceivedPaymentRecord = Static<typeof ReceivedPayment>;
