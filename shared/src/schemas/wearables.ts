import { type Static, Type } from 'typebox';
import { CurrencyCode, HandleInput, ListQuery, MajorAmount, Mode, Nullable, Timestamp, literalUnion } from './common.ts';
import { NAME_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../limits.ts';

/** Spec, "Wearable tag": the kinds of NFC tag a handle can be linked to. */
export const TAG_TYPES = ['sticker', 'card', 'ring', 'band', 'keychain', 'watch', 'custom'] as const;
export const TagType = literalUnion(TAG_TYPES, { description: TAG_TYPES.join(', ') });
export type TagType = Static<typeof TagType>;

export const TagStatus = Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
  description: 'active, or disabled: a disabled tag does not resolve (403) and cannot pay',
});

/** TG followed by 8 hex digits; the service answers upper-case and accepts either case. */
export const TagIdInput = Type.String({ minLength: 1, maxLength: 64, description: 'A tag id: TG followed by 8 hexadecimal characters' });

/** The holder's consent, given on a merchant's call: their wallet PIN, checked with the wallet's lock-out. */
const HolderPin = Type.Optional(Type.String({
  pattern: '^[0-9]{4,8}$',
  description:
    'The wallet PIN of the holder whose wallet the tag will pay from. A live merchant key needs it to link a tag to a wallet that is not ' +
    'the merchant\'s own (403 holder_consent_required without it, 403 wrong_pin, 429 pin_attempts_exceeded after 5 wrong PINs); test mode checks it when given',
}));

export const CreateWearableBody = Type.Object({
  /** The @handle the tag pays from; a wallet holder may omit it (their own). */
  handle: Type.Optional(HandleInput),
  tagType: TagType,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX, description: 'Defaults to the wallet\'s display name' })),
  holderPin: HolderPin,
});
export type CreateWearableBody = Static<typeof CreateWearableBody>;

export const UpdateWearableBody = Type.Object({
  handle: Type.Optional(HandleInput),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  status: Type.Optional(TagStatus),
  holderPin: HolderPin,
});
export type UpdateWearableBody = Static<typeof UpdateWearableBody>;

/** How the holder agreed that the tag pays from their wallet. */
export const TAG_CONSENTS = ['holder_pin', 'holder_session', 'own_wallet', 'test_mode', 'unrecorded'] as const;

export const NoPinLimits = Type.Object(
  {
    currency: Type.String({ description: 'The wallet\'s currency, the currency of the limits: a tap in another currency always needs the PIN' }),
    perTap: Type.Number({ description: 'Major units: a tap above it needs the holder\'s PIN (POST /api/pos/sessions/<id>/tap answers 403 pin_required)' }),
    perDay: Type.Number({ description: 'Major units: taps without the PIN may take at most this much per UTC day' }),
    perTapDefault: Type.Number({ description: 'The default per tap (NO_PIN_PER_TAP_USD converted); the holder may set perTap up to it' }),
    perDayDefault: Type.Number({ description: 'The default per day (NO_PIN_PER_DAY_USD converted); the holder may set perDay up to it' }),
    spentToday: Type.Optional(Type.Number({ description: 'Holder routes only: what taps without the PIN took today (UTC)' })),
  },
  { description: 'No-PIN limits in force: the lower of the holder\'s own and the default' },
);

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
  consent: literalUnion(TAG_CONSENTS, {
    description:
      'How the holder agreed: holder_pin (a merchant sent holderPin), holder_session (the holder linked it), own_wallet (the merchant\'s own), ' +
      'test_mode (a test merchant without holderPin), unrecorded (linked before consent was recorded: every tap needs the PIN until the holder sets its limits)',
  }),
  disabledBy: Nullable(literalUnion(['holder', 'merchant'] as const, { description: 'Who disabled it; a tag its holder disabled is re-enabled only by the holder or with holderPin' })),
  noPinLimits: NoPinLimits,
  linkedAt: Timestamp,
  lastTappedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WearableRecord = Static<typeof WearableRecord>;

/** POST /api/wallet/wearables: the signed-in holder registers a tag to their own wallet. */
export const RegisterOwnWearableBody = Type.Object({
  tagType: TagType,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX, description: 'Defaults to the wallet\'s display name' })),
});

/** A no-PIN limit the holder sets: major units of the wallet's currency, 0 (always the PIN) up to the default; null restores the default. */
const HolderNoPinLimit = Type.Optional(Nullable(Type.Number({ minimum: 0, description: 'Major units, 0 up to the default; null: the default' })));

/** PATCH /api/wallet/wearables/<tagId>. */
export const HolderUpdateWearableBody = Type.Object({
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
  status: Type.Optional(TagStatus),
  noPinLimits: Type.Optional(Type.Object({ perTap: HolderNoPinLimit, perDay: HolderNoPinLimit })),
});

/** The shared paging (ListQuery) and a status filter. */
export const HolderWearableListQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(TagStatus),
});

/** GET /api/wallet/wearables/<tagId>/activity: one payment made with the tag. */
export const TagActivity = Type.Object({
  type: literalUnion(['pos_session', 'offline_tap'] as const, { description: 'pos_session: a POS session the tag settled; offline_tap: a tap a terminal took offline' }),
  id: Type.String({ description: 'The POS session id or the offline payment id' }),
  status: Type.String({ description: 'pos_session: completed or failed; offline_tap: accepted or declined' }),
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  description: Type.String(),
  merchant: Nullable(Type.Object({ handle: Type.String(), name: Type.String() })),
  walletRef: Nullable(Type.String({ description: 'The ledger transfer, when money moved' })),
  declineCode: Nullable(Type.String({ description: 'offline_tap declined: the rule (insufficient_funds, tag_disabled, ...)' })),
  errorMessage: Nullable(Type.String({ description: 'Why it failed or was declined' })),
  at: Timestamp,
});

/** GET /api/wallet/wearables/<tagId>/merchants: a merchant that may charge the tag without the holder's PIN. */
export const TagMerchant = Type.Object({
  merchant: Type.Object({ handle: Type.String({ description: 'The merchant\'s @handle' }), name: Type.String() }),
  source: literalUnion(['registered', 'pin', 'holder'] as const, {
    description:
      'registered: the merchant registered the tag with the holder\'s consent (or in test mode); pin: the holder paid it with the tag and ' +
      'her PIN; holder: the holder added it',
  }),
  addedAt: Timestamp,
});
export type TagMerchant = Static<typeof TagMerchant>;

/** POST /api/wallet/wearables/<tagId>/merchants. */
export const AddTagMerchantBody = Type.Object({
  handle: HandleInput,
});

/** DELETE /api/wallet/wearables/<tagId>/merchants/<handle>. */
export const RemovedTagMerchant = Type.Object({
  handle: Type.String({ description: 'The merchant\'s @handle' }),
  deleted: Type.Literal(true),
});

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
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
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
