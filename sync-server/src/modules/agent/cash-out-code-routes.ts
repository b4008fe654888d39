import { CASH_OUT_CODE_MINUTES, ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CurrencyCode, ErrorBody, ListQuery, MajorAmount, Pin } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { cashOutCodeService } from './cash-out-codes.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody };

const CashOutCode = Type.Object({
  id: Type.String(),
  code: Type.Optional(Type.String({ description: 'The code, "1234 5678": only in the answer that makes it (it is stored as a slow hash, like a PIN)' })),
  status: Type.Union([Type.Literal('active'), Type.Literal('used'), Type.Literal('cancelled'), Type.Literal('expired')]),
  amount: Type.Number({ description: 'What an agent pays out with it, exactly (major units)' }),
  currency: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  endedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it was used or cancelled' })),
  operationId: Type.Optional(Type.String({ description: 'The agent\'s cash-out that used it' })),
});

const CreateBody = Type.Object({
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
  walletPin: { ...Pin, description: 'Her wallet PIN: making a code is her consent to the cash-out it allows' },
});

/** The holder's one-time cash-out codes, from her wallet session (docs/agents.md, "Cash-out with a one-time code"). */
export async function cashOutCodeRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const codes = cashOutCodeService(context);
  const holderOf = (request: FastifyRequest) => {
    const principal = principalAs(request, 'wallet');
    return { handle: principal.handle, mode: principal.mode };
  };

  app.post('/api/wallet/cash-out-codes', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['agent'],
      summary: 'Make a one-time code to take cash at an agent without typing the PIN there',
      description:
        `Body {amount, currency? (default: the wallet's), walletPin}. Answers the code, 8 digits, shown this once: she reads it out to an agent, ` +
        `who pays her exactly amount in cash against her wallet (POST /api/agent/cash-out with code), once, within ${CASH_OUT_CODE_MINUTES} ` +
        'minutes. A wallet has one active code: making one cancels the last. Nothing moves until an agent uses it (her balance is checked ' +
        'again then). A code for more than the wallet holds in that currency is 422 `insufficient_funds`, and one past what her ' +
        'verification tier lets out in 24 hours (docs/wallet-tiers.md) is 422 `tier_daily_out_limit_exceeded` with what is left, both answered before the PIN is ' +
        'checked. A wrong PIN is 403 `wrong_pin` (429 `pin_attempts_exceeded` after 5). No Idempotency-Key: a retry makes a new code, ' +
        'which replaces the first.',
      body: CreateBody,
      response: { 201: CashOutCode, ...errors, 422: ErrorBody },
    },
  }, async (request, reply) => reply.status(201).send(await codes.create(holderOf(request), request.body)));

  app.get('/api/wallet/cash-out-codes', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['agent'],
      summary: 'Her cash-out codes, newest first (never the codes themselves)',
      querystring: ListQuery,
      response: { 200: Type.Object({ data: Type.Array(CashOutCode), total: Type.Number(), limit: Type.Number(), offset: Type.Number() }), ...errors },
    },
  }, async (request) => codes.list(holderOf(request), request.query.limit ?? 20, request.query.offset ?? 0));

  app.post('/api/wallet/cash-out-codes/:id/cancel', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['agent'],
      summary: 'Cancel a cash-out code she no longer needs',
      description: 'Cancelling a cancelled or expired code answers it again; 409 `cash_out_code_used` once an agent used it; 404 `cash_out_code_not_found` for another wallet\'s.',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }) }),
      response: { 200: CashOutCode, ...errors },
    },
  }, async (request) => codes.cancel(holderOf(request), request.params.id));
}
