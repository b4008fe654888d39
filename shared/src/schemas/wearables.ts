import { type Static, Type } from 'typebox';
import { CurrencyCode, HandleInput, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';

/** Spec, "Wearable tag": the kinds of NFC tag a handle can be linked to. */
export const TAG_TYPES = ['sticker', 'card', 'ring', 'band', 'keychain', 'watch', 'custom'] as const;
export const TagType = literalUnion(TAG_TYPES, { description: TAG_TYPES.join(', ') });
export type TagType = Static<typeof TagType>;

export const TagStatus = Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
  description: 'active, or disabled: a disabled tag does not resolve (403) and cannot pay',
});

/** TG followed by 8 hex digits; the service answers upper-case and accepts either case. */
export const TagIdInput = Type.String({ minLength: 1, maxLength: 64, description: 'A tag id: TG followed by 8 hexadecimal characters' });

export const CreateWearableBody = Type.Object({
  /** The @handle the tag pays from; a wallet holder may omit it (their own). */
  handle: Type.Optional(HandleInput),
  tagType: TagType,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Defaults to the wallet\'s display name' })),
});
export type CreateWearableBody = Static<typeof CreateWearableBody>;

export const UpdateWearableBody = Type.Object({
  handle: Type.Optional(HandleInput),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(TagStatus),
});
export type UpdateWearableBody = Static<typeof UpdateWearableBody>;

export const WearableRecord = Type.Object({
  tagId: Type.String({ description: 'TG + 8 upper-case hex' }),
  handle: Type.String({ description: 'The linked @handle' }),
  tagType: Type.String(),
  displayName: Type.String(),
  status: Type.String({ description: 'active or disabled' }),
  tapUrl: Type.String({ description: '{base_url}/tap/<tagId>: the URL written to the tag as an NDEF URI record' }),
  redirectTo: Type.String({ description: '/pay/<handle>?source=nfc' }),
  tapCount: Type.Integer({ description: 'Resolves plus submitted POS taps' }),
  mode: Mode,
  lastTappedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WearableRecord = Static<typeof WearableRecord>;

/** GET /api/tap/<tagId>: public. */
export const TapResolveResponse = Type.Object({
  tagId: Type.String(),
  handle: Type.String(),
  displayName: Type.String(),
  tagType: Type.String(),
  redirectTo: Type.String({ description: '/pay/<handle>?source=nfc' }),
  tapCount: Type.Integer({ description: 'The counter after this resolve' }),
});
export type TapResolveResponse = Static<typeof TapResolveResponse>;

export const WearableListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  handle: Type.Optional(HandleInput),
  status: Type.Optional(TagStatus),
});

/** POST /api/wallet/pay: the signed-in holder pays another wallet (the /pay/<handle> page). */
export const WalletPayBody = Type.Object({
  to: HandleInput,
  amount: MajorAmount,
  /** Defaults to the recipient wallet's currency. */
  currency: Type.Optional(CurrencyCode),
  note: Type.Optional(Type.String({ maxLength: 140 })),
});
export type WalletPayBody = Static<typeof WalletPayBody>;

export const WalletPayResponse = Type.Object({
  transferId: Type.String({ description: 'The ledger transfer; a retry with the same Idempotency-Key answers the same one' }),
  status: Type.Literal('completed'),
  from: Type.String(),
  to: Type.String(),
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
  balance: Type.Number({ description: 'The payer\'s balance in that currency after the payment, major units' }),
  createdAt: Timestamp,
});
export type WalletPayResponse = Static<typeof WalletPayResponse>;
