import { type Static, Type } from 'typebox';
import { CurrencyCode, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { TagIdInput } from './wearables.ts';

/** Spec, "POS session status". tapped and processing exist only inside the tap's transaction. */
export const POS_SESSION_STATUSES = ['pending', 'tapped', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type PosSessionStatus = (typeof POS_SESSION_STATUSES)[number];
export const PosSessionStatus = literalUnion(POS_SESSION_STATUSES);

/** Spec, Limits: a POS session lives 90 seconds. */
export const POS_SESSION_TTL_SECONDS = 90;

export const CreatePosSessionBody = Type.Object({
  amount: MajorAmount,
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: 500 })),
  callbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Receives pos.session.completed or pos.session.failed, signed sha256=<hex>' })),
});
export type CreatePosSessionBody = Static<typeof CreatePosSessionBody>;

export const PosTapBody = Type.Object({
  tagId: TagIdInput,
  pin: Type.Optional(Type.String({
    pattern: '^[0-9]{4,8}$',
    description:
      'The tag holder\'s wallet PIN, for a tap above the tag\'s no-PIN limits (after 403 pin_required); checked with the wallet\'s lock-out ' +
      '(403 wrong_pin, 429 pin_attempts_exceeded). Never stored, nor part of the Idempotency-Key\'s request hash',
  })),
});
export type PosTapBody = Static<typeof PosTapBody>;

export const PosSessionRecord = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  status: PosSessionStatus,
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  description: Type.String(),
  callbackUrl: Type.Optional(Type.String()),
  tapUrl: Type.String({ description: '{base_url}/tap/<sessionId>: opens the page where the customer pays this session with @handle and PIN' }),
  qrPayload: Type.String({ description: 'The string to show as a QR code: the same URL as tapUrl' }),
  ttlSeconds: Type.Integer({ description: 'Always 90' }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  merchantId: Type.String(),
  mode: Mode,
  payerHandle: Type.Optional(Type.String({ description: 'Present when completed (and on a failed settlement)' })),
  walletRef: Type.Optional(Type.String({ description: 'The wallet transfer reference, present when completed' })),
  tagId: Type.Optional(Type.String()),
  completedAt: Type.Optional(Timestamp),
  endedAt: Type.Optional(Timestamp),
  errorMessage: Type.Optional(Type.String({ description: 'Present when the session ended failed, expired or cancelled' })),
});
export type PosSessionRecord = Static<typeof PosSessionRecord>;

export const PosSessionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(PosSessionStatus),
});

/** GET /api/pos/context: who the /pos page is signed in as. */
export const PosContextResponse = Type.Object({
  merchant: Type.Object({ id: Type.String(), name: Type.String(), handle: Type.String(), country: Type.String(), currency: Type.String() }),
  mode: Mode,
  terminal: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
});
