import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toMajor } from '@tapline/shared/money';
import { CurrencyCode, ErrorBody, HandleInput, ListQuery, MajorAmount } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { idempotencyScope } from '../../auth/principal.ts';
import { derivedId } from '../../http/idempotency.ts';
import { maskPhone } from '../collections/index.ts';
import { agentCashRecord, agentCashService } from './cash.ts';
import { type AgentCashLine, listAgentCash } from './cash-store.ts';

/** A cash pickup the agent paid, as a line of its cash history. */
function pickupLine(row: Extract<AgentCashLine, { kind: 'cash_pickup' }>) {
  return {
    id: row.id,
    kind: row.kind,
    phone: maskPhone(row.phone),
    paymentId: row.payment_id,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    commission: toMajor(row.commission, row.currency),
    transferId: row.transfer_id,
    createdAt: row.created_at.toISOString(),
  };
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

const AgentCashRecord = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('cash_in'), Type.Literal('cash_out'), Type.Literal('cash_pickup')], { description: 'cash_pickup (in the list only): a sender\'s cash pickup payment the agent paid out against the recipient\'s phone and code (POST /api/agent/cash-pickups)' }),
  handle: Type.Optional(Type.String({ description: 'The customer\'s @handle (cash_in, cash_out)' })),
  phone: Type.Optional(Type.String({ description: 'cash_pickup: the recipient\'s phone, masked' })),
  paymentId: Type.Optional(Type.String({ description: 'cash_pickup: the sender\'s payment it paid out' })),
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  commission: Type.Number({ description: 'What the platform paid into the agent\'s float on top, for this operation (AGENT_CASH_IN_COMMISSION_PCT / AGENT_CASH_OUT_COMMISSION_PCT; 0 by default), major units' }),
  cashOutCodeId: Type.Optional(Type.String({ description: 'A cash-out confirmed with the customer\'s one-time code: its id' })),
  transferId: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  floatBalance: Type.Optional(Type.Number({ description: 'The agent wallet\'s balance in this currency after the operation (major units)' })),
});

const CashInBody = Type.Object({
  handle: HandleInput,
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
});

const CashOutBody = Type.Object({
  handle: HandleInput,
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
  walletPin: Type.Optional(Type.String({ minLength: 1, maxLength: 12, description: 'The customer\'s wallet PIN, typed by her on the agent\'s device: her consent (or code)' })),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'Instead of walletPin: the one-time cash-out code she made in her wallet (POST /api/wallet/cash-out-codes), for exactly this amount' })),
});

/** The customer's PIN or code stays out of the stored request hash; a refused PIN or a lock-out is not kept, so a retry with the right PIN runs. */
const pinAsCredential = {
  scope: (request: FastifyRequest) => idempotencyScope(request.credential.state === 'valid' ? request.credential.principal : undefined),
  secrets: ['walletPin', 'code'],
  beforeReplay: async () => undefined,
  forgetStatuses: [403, 429],
};

/** The agent's cash desk: cash-in, cash-out and their history (docs/agents.md). */
export async function agentCashRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = agentCashService(context);
  const agentOf = (request: FastifyRequest) => {
    const principal = principalAs(request, 'agent');
    return { agentId: principal.agentId, walletId: principal.walletId, handle: principal.handle, mode: principal.mode };
  };

  app.post('/api/agent/cash-in', {
    config: { auth: ['agent'], idempotency: 'optional' },
    schema: {
      tags: ['agent'],
      summary: 'Cash-in: the customer hands the agent cash and the agent\'s wallet credits hers',
      description:
        'Body {handle, amount (major units), currency? (default: the customer wallet\'s)}. One ledger transfer from the agent\'s wallet (its float) ' +
        'to the customer\'s. 404 `wallet_not_found` for an unknown @handle, 400 `cannot_pay_self` for the agent\'s own, 422 `insufficient_funds` ' +
        'when the float does not cover it; 422 `tier_daily_in_limit_exceeded` or `tier_balance_limit_exceeded` when the customer\'s verification ' +
        'tier (docs/wallet-tiers.md) allows no more in, with a sentence saying what is left. Send an Idempotency-Key: a retry answers the first operation and moves nothing twice.',
      body: CashInBody,
      response: { 201: AgentCashRecord, ...errors },
    },
  }, async (request, reply) => reply.status(201).send(await service.cashIn(agentOf(request), request.body, derivedId(request, 'agent_cash', 'acx'))));

  app.post('/api/agent/cash-out', {
    config: { auth: ['agent'], idempotency: 'optional', idempotencyBodyCredential: pinAsCredential },
    schema: {
      tags: ['agent'],
      summary: 'Cash-out: the customer confirms with her wallet PIN and the agent pays her cash against her wallet',
      description:
        'Body {handle, amount, currency?, walletPin | code}. Her consent: she types her PIN on the agent\'s device, or reads out the one-time ' +
        'code she made in her wallet (POST /api/wallet/cash-out-codes; 8 digits, spaces ignored) for exactly this amount. Neither: 400 ' +
        '`wallet_pin_required`; both: 400 `cash_out_consent_ambiguous`. A wrong PIN is 403 `wrong_pin`, a wrong code 403 `wrong_cash_out_code`; ' +
        'wrong PINs and codes count together, and after 5 the wallet refuses both for 15 minutes (429 `pin_attempts_exceeded`). A right code: 400 ' +
        '`cash_out_code_amount` for another amount, 410 `cash_out_code_expired`, 409 `cash_out_code_used` when it was used or cancelled meanwhile; ' +
        '400 `cash_out_code_invalid` when it is not 8 digits. One ledger transfer from the customer\'s wallet to the agent\'s (plus the agent\'s ' +
        'commission from the platform\'s fees, when configured); 422 `insufficient_funds` when her wallet does not cover it; 422 ' +
        '`tier_daily_out_limit_exceeded` when her verification tier\'s money out for 24 hours is used up (docs/wallet-tiers.md). Send an ' +
        'Idempotency-Key: a retry answers the first operation and moves nothing twice.',
      body: CashOutBody,
      response: { 201: AgentCashRecord, ...errors },
    },
  }, async (request, reply) => reply.status(201).send(await service.cashOut(agentOf(request), request.body, derivedId(request, 'agent_cash', 'acx'))));

  app.get('/api/agent/cash-transactions', {
    config: { auth: ['agent'] },
    schema: {
      tags: ['agent'],
      summary: 'The agent\'s cash-ins, cash-outs and the cash pickups it paid out, newest first (a pickup dated when paid, its transferId the payment\'s settlement into the float)',
      querystring: ListQuery,
      response: { 200: Type.Object({ data: Type.Array(AgentCashRecord), total: Type.Number(), limit: Type.Number(), offset: Type.Number() }), ...errors },
    },
  }, async (request) => {
    const agent = agentOf(request);
    const limit = request.query.limit ?? 20;
    const offset = request.query.offset ?? 0;
    const { rows, total } = await listAgentCash(context.db, agent.agentId, limit, offset);
    return { data: rows.map((row) => (row.kind === 'cash_pickup' ? pickupLine(row) : agentCashRecord(row))), total, limit, offset };
  });
}
