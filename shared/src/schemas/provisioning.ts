import { type Static, Type } from 'typebox';
import { CountryCode, CurrencyCode, HandleInput, MajorAmount, Mode, Pin, Timestamp } from './common.ts';
import { Email } from './merchant-users.ts';
import { NAME_LENGTH_MAX, URL_LENGTH_MAX } from '../limits.ts';

export const Destination = Type.Object({
  type: Type.Union([Type.Literal('mobile_wallet'), Type.Literal('bank_account')]),
  provider: Type.String({ minLength: 1, maxLength: 60 }),
  phone: Type.Optional(Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$' })),
  accountNumber: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z-]{4,34}$' })),
  country: CountryCode,
  currency: CurrencyCode,
  preferred: Type.Optional(Type.Boolean()),
});
export type Destination = Static<typeof Destination>;

export const CreateMerchantBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
  handle: HandleInput,
  country: CountryCode,
  currency: CurrencyCode,
  webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: URL_LENGTH_MAX })),
  ownerEmail: Type.Optional({ ...Email, description: 'The owner of the merchant dashboard: the answer carries their one-time set-up link' }),
});
export type CreateMerchantBody = Static<typeof CreateMerchantBody>;

export const CreateMerchantResponse = Type.Object({
  id: Type.String(),
  handle: Type.String(),
  name: Type.String(),
  country: Type.String(),
  currency: Type.String(),
  testKey: Type.String({ description: 'mk_test_ key, shown once' }),
  liveKey: Type.String({ description: 'mk_live_ key, shown once' }),
  webhookSecret: Type.String(),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  rateLimitMultiplier: Type.Integer(),
  createdAt: Timestamp,
  ownerSetupUrl: Type.Optional(Type.String({ description: 'With ownerEmail: the owner\'s one-time dashboard set-up link (7 days), shown once' })),
  ownerSetupExpiresAt: Type.Optional(Timestamp),
});

export const MerchantRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  handle: Type.String(),
  country: Type.String(),
  currency: Type.String(),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  rateLimitMultiplier: Type.Integer(),
  createdAt: Timestamp,
});

export const UpdateMerchantBody = Type.Object({
  rateLimitMultiplier: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
});

export const CreateWalletBody = Type.Object({
  handle: HandleInput,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  country: CountryCode,
  currency: CurrencyCode,
  pin: Pin,
  mode: Type.Optional(Mode),
  preferredRail: Type.Optional(Type.String({ maxLength: 40 })),
  destinations: Type.Optional(Type.Array(Destination, { maxItems: 20 })),
});
export type CreateWalletBody = Static<typeof CreateWalletBody>;

export const WalletRecord = Type.Object({
  handle: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  country: Type.String(),
  currency: Type.String(),
  mode: Mode,
  createdAt: Timestamp,
});

export const CreditWalletBody = Type.Object({
  amount: MajorAmount,
  currency: CurrencyCode,
  mode: Type.Optional(Mode),
});

export const CreditWalletResponse = Type.Object({
  transferId: Type.String(),
  handle: Type.String(),
  mode: Mode,
  amount: Type.Number(),
  currency: Type.String(),
  balance: Type.Number({ description: 'The wallet\'s balance in that currency after the credit, major units' }),
});

export const CreateAgentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX }),
  handle: HandleInput,
  country: CountryCode,
  currency: CurrencyCode,
  mode: Type.Optional(Mode),
});

export const CreateAgentResponse = Type.Object({
  agentId: Type.String(),
  secret: Type.String({ description: 'Shown once; the agent signs in with agentId and secret' }),
  handle: Type.String(),
  name: Type.String(),
  mode: Mode,
});
