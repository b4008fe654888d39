import { Type } from 'typebox';
import { LANGUAGES } from '../i18n/languages.ts';
import { Mode, Timestamp, literalUnion } from './common.ts';

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

/** A language with a catalogue (shared/src/i18n): a terminal's kiosk screens and receipts. */
export const TerminalLanguage = literalUnion(LANGUAGES, { description: `ISO 639-1: ${LANGUAGES.join(', ')}; English by default` });

export const CreateTerminalBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80 }),
  language: Type.Optional(TerminalLanguage),
});

export const TerminalRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mode: Mode,
  createdAt: Timestamp,
  revokedAt: Type.Union([Type.String(), Type.Null()]),
  lastSeenAt: Type.Union([Type.String(), Type.Null()]),
  language: TerminalLanguage,
  queuedCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Offline payments and gift-card sales the kiosk last said it holds unsent (null: it has not said yet). The server learns of them only when the kiosk syncs.' }),
  queuedReportedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the kiosk last reported queuedCount' }),
  connected: Type.Boolean({ description: 'The kiosk holds a live sync connection (socket.io) now, to any server instance; a revoked terminal is never connected' }),
  pairingCodeExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the terminal\'s pairing code expires while one is waiting to be used; null when none is waiting (the last one paired a kiosk or expired) and for a revoked terminal' }),
});

/** A code that pairs a kiosk with its terminal (POST /api/terminals/pair): 10 minutes, once. */
const PairingCodeFields = {
  pairingCode: Type.String({ description: '8 characters shown as ABCD-EFGH (the dash and case are optional when typed); the kiosk exchanges it for its token' }),
  pairingExpiresAt: Timestamp,
  pairingQr: Type.String({ description: 'The code as a QR code PNG data URL, for the kiosk\'s barcode scanner' }),
};

export const CreateTerminalResponse = Type.Object({
  id: Type.String(),
  token: Type.String({ description: 'Send as Authorization: Bearer term.<token>; shown once. A kiosk is better paired with pairingCode: pairing gives it a new token and this one stops working' }),
  name: Type.String(),
  mode: Mode,
  createdAt: Timestamp,
  language: TerminalLanguage,
  ...PairingCodeFields,
});

export const PairingCodeResponse = Type.Object({ terminalId: Type.String(), ...PairingCodeFields });

export const PairTerminalBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32, description: 'The pairing code as typed or scanned' }) });

export const PairTerminalResponse = Type.Object({
  token: Type.String({ description: 'The terminal\'s new token: send as Authorization: Bearer term.<token>. Any earlier token of the terminal stops working' }),
  terminal: Type.Object({
    id: Type.String(),
    name: Type.String(),
    mode: Mode,
    merchant: Type.Object({ name: Type.String(), handle: Type.String() }),
  }),
});
