import { Type } from 'typebox';
import { HandleInput, Mode, Pin, Timestamp } from './common.ts';
import { LOOKUP_ID_LENGTH_MAX } from '../limits.ts';

export const WalletSessionBody = Type.Object({
  handle: HandleInput,
  pin: Pin,
  mode: Type.Optional(Mode),
});

export const SessionResponse = Type.Object({
  token: Type.String({ description: 'Send as Authorization: Bearer wallet.<token> (agent.<token> for agents)' }),
  expiresAt: Timestamp,
  handle: Type.String(),
  mode: Mode,
});

export const AgentSessionBody = Type.Object({
  agentId: Type.String({ minLength: 1, maxLength: LOOKUP_ID_LENGTH_MAX }),
  secret: Type.String({ minLength: 1, maxLength: 200 }),
});
