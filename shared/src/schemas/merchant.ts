import { Type } from 'typebox';
import { Mode, Timestamp } from './common.ts';

export const RotateKeyBody = Type.Object({
  graceHours: Type.Optional(Type.Number({ minimum: 0, maximum: 24, default: 0, description: 'Hours the current key keeps working (0 to 24)' })),
});

export const RotateKeyResponse = Type.Object({
  key: Type.String({ description: 'The new key, shown once' }),
  previousKeyExpiresAt: Timestamp,
});

export const MerchantSettingsBody = Type.Object({
  webhookUrl: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()])),
  rotateWebhookSecret: Type.Optional(Type.Boolean()),
});

export const MerchantSettingsResponse = Type.Object({
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  webhookSecret: Type.Optional(Type.String({ description: 'Present only when rotated' })),
});

export const CreateTerminalBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 80 }) });

export const TerminalRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mode: Mode,
  createdAt: Timestamp,
  revokedAt: Type.Union([Type.String(), Type.Null()]),
  lastSeenAt: Type.Union([Type.String(), Type.Null()]),
});

export const CreateTerminalResponse = Type.Object({
  id: Type.String(),
  token: Type.String({ description: 'Send as Authorization: Bearer term.<token>; shown once' }),
  name: Type.String(),
  mode: Mode,
  createdAt: Timestamp,
});
