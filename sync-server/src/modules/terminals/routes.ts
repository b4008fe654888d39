import type { TypedApp } from '../../http/typed-app.ts';
import { ID_LENGTH_MAX, PAIRING_CODE_TTL_SECONDS, PAIRING_MISS_WINDOW_SECONDS, PAIRING_MISSES_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { ErrorBody, PairTerminalBody, PairTerminalResponse, PairingCodeResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { terminalService } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 429: ErrorBody };

const PAIRING_RULES = `A pairing code is 8 characters (shown ABCD-EFGH; case and dash optional), valid ${PAIRING_CODE_TTL_SECONDS / 60} minutes and
single use. Pairing gives the terminal a new token (its earlier token stops working). Unknown code: 404
pairing_code_not_found; malformed: 400 pairing_code_invalid; used: 409 pairing_code_used; expired: 410
pairing_code_expired. ${PAIRING_MISSES_MAX} unknown or malformed codes from one IP within ${PAIRING_MISS_WINDOW_SECONDS / 60} minutes lock it out
(429 pairing_locked with Retry-After) until the window ends.`;

/** Pairing kiosks: a new code for a terminal (merchant), and the kiosk's exchange of a code for its token (public). */
export async function terminalRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = terminalService(context);

  app.post('/api/merchant/terminals/:id/pairing-code', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['merchant'],
      summary: 'A new pairing code for a terminal (the older one stops working)',
      description: PAIRING_RULES,
      params: Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) }),
      response: { 201: PairingCodeResponse, ...errors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    return reply.status(201).send(await service.newPairingCode(principal, request.params.id));
  });

  app.post('/api/terminals/pair', {
    schema: {
      tags: ['merchant'],
      summary: 'A kiosk exchanges a pairing code for its terminal token (no credential)',
      description: PAIRING_RULES,
      body: PairTerminalBody,
      response: { 200: PairTerminalResponse, ...errors },
    },
  }, async (request) => service.pair(request.body.code, request.ip));
}
