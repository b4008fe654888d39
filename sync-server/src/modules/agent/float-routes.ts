import { ID_LENGTH_MAX, LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  CreateSettlementAccountBody,
  CreateTopUpBody,
  CurrencyCode,
  ErrorBody,
  ListOf,
  ListQuery,
  MajorAmount,
  Nullable,
  Timestamp,
  TopUpQuoteQuery,
  TopUpRecord,
  WithdrawalRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { derivedId } from '../../http/idempotency.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import { SANDBOX_PHONE_SUFFIXES, listWalletTopUps } from '../collections/index.ts';
import { SANDBOX_PAYOUT_SUFFIXES } from '../payouts/index.ts';
import { findWithdrawal, listWithdrawals } from '../wallet-money/index.ts';
import { notFound } from '../../http/errors.ts';
import type { CashAgent } from './cash.ts';
import { agentFloatService, floatTopUpRecord, settlementAccountRecord, settlementRecord } from './float.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const agentAuth = { auth: ['agent'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; required' })) });

const FloatTopUpQuote = Type.Object({
  amount: Type.Number({ description: 'What the float receives, major units' }),
  fee: Type.Number({ description: 'The top-up fee (AGENT_FLOAT_TOP_UP_FEE_PCT of amount, rounded up), paid by the phone on top' }),
  total: Type.Number({ description: 'What the phone is asked to pay: amount + fee' }),
  currency: Type.String(),
  feePercent: Type.String({ description: 'The fee as a percentage of amount, an exact decimal string' }),
  provider: Nullable(Type.String({ description: 'sandbox (test mode) or the provider the phone would be asked through; null when none collects in the agent\'s country (422 top_up_unavailable)' })),
  floatBalance: Type.Number({ description: 'The float now, major units' }),
});

const AgentSettlementAccount = Type.Object({
  type: Type.Union([Type.Literal('bank'), Type.Literal('mobile_money')]),
  country: Type.String(),
  currency: Type.String(),
  bankCode: Nullable(Type.String()),
  accountNumber: Nullable(Type.String({ description: 'Masked: the last four digits only' })),
  phone: Nullable(Type.String({ description: 'Masked: the country code and the last three digits' })),
  operator: Nullable(Type.String()),
  accountName: Type.String(),
  nameSource: Type.Union([Type.Literal('provider'), Type.Literal('sandbox'), Type.Literal('merchant')], { description: 'provider: resolved by the provider; sandbox: test mode; merchant: as the administrator typed it (no resolve where the account is)' }),
  registeredAt: Timestamp,
});

const SettlementQuote = Type.Object({
  amount: Type.Number({ description: 'What the settlement account receives, major units' }),
  fee: Type.Number({ description: 'The settlement fee (AGENT_SETTLEMENT_FEE_PCT of amount, rounded up), debited from the float on top' }),
  total: Type.Number({ description: 'What leaves the float: amount + fee' }),
  currency: Type.String(),
  feePercent: Type.String(),
  floatBalance: Type.Number({ description: 'The float now, major units' }),
  settlementAccount: Type.Union([AgentSettlementAccount, Type.Null()], { description: 'Where a settlement goes; null: none registered yet (a settlement answers 422 no_settlement_account)' }),
  limits: Type.Object({
    perSettlement: Type.Number({ description: 'The most one settlement may be (AGENT_SETTLEMENT_MAX_USD converted at the FX mid rate, rounded down)' }),
    daily: Type.Number({ description: 'The most settlements may add up to in any 24 hours (AGENT_SETTLEMENT_DAILY_USD converted)' }),
    usedToday: Type.Number({ description: 'Settled in the last 24 hours (failed and reversed ones do not count)' }),
    remainingToday: Type.Number(),
  }),
});

const CreateSettlementBody = Type.Object({
  amount: { ...MajorAmount, description: 'What the settlement account receives, major units (the float pays amount + fee)' },
  currency: Type.Optional({ ...CurrencyCode, description: 'Default: the float\'s currency (400 currency_not_accepted for another)' }),
  secret: Type.String({ minLength: 1, maxLength: 200, description: 'The agent\'s secret (the one it signs in with): its confirmation that the float leaves. Never stored, not even with the Idempotency-Key' }),
});

const TOP_UP_FLOW = `An agent funds its float from its own mobile money (docs/agents.md, "Funding and settling the float"): the phone is asked to
pay amount + fee (M-Pesa Express STK push in KE, MTN MoMo request-to-pay where MTN operates, else any configured provider that
collects; the RAIL_ROUTES mobile_money order), the agent approves on the phone, and the float is credited amount exactly once when the
provider confirms (its callback or a status poll, whichever comes first, under the collection's row lock). States: pending ->
completed | failed | expired (COLLECTION_TIMEOUT_SECONDS). The fee is AGENT_FLOAT_TOP_UP_FEE_PCT (default 0) of amount, rounded up,
stated by GET /api/agent/float/top-ups/quote. Test mode: the sandbox answers after SANDBOX_STEP_MS, approved except the phone's last
four digits ${SANDBOX_PHONE_SUFFIXES.declined} declined, ${SANDBOX_PHONE_SUFFIXES.insufficient_funds} insufficient funds, ${SANDBOX_PHONE_SUFFIXES.no_answer}
no answer (expired). On completion, in one transaction: the state, the ledger transfer (kind agent_float_top_up: rail_clearing live,
funding in the sandbox -> the float, the fee to fees) and the agent's notification agent.float.top_up.completed (GET
/api/agent/notifications); a failure or expiry: agent.float.top_up.failed.`;

const SETTLEMENT_FLOW = `An agent sends float money out to its registered settlement account (docs/agents.md, "Funding and settling the float"):
a bank account or mobile money number an administrator registered (PUT /api/admin/agents/{agentId}/settlement-account), paid
through the rails (M-Pesa B2C, MTN MoMo disbursement, Paystack and Flutterwave transfers; the payout route table) and confirmed with
the agent's secret. The float is debited amount + fee in the transaction that records the settlement (422 insufficient_funds
otherwise); the payment scheduler pays it out, never twice; a settlement that fails, or is reversed after it was paid, returns amount +
fee to the float (one correcting ledger transfer). States: pending -> processing -> completed | failed | reversed. The fee is
AGENT_SETTLEMENT_FEE_PCT (default 0) of amount, rounded up. Limits, from US dollars at the FX mid rate, rounded down: one settlement
at most AGENT_SETTLEMENT_MAX_USD (default 5000), the last 24 hours' settlements at most AGENT_SETTLEMENT_DAILY_USD (default 20000); both
in GET /api/agent/float/settlements/quote. Test mode: the sandbox, by the account's last four digits:
${SANDBOX_PAYOUT_SUFFIXES.sandbox_failure} fails at the provider (money back at once), ${SANDBOX_PAYOUT_SUFFIXES.sandbox_pending} stays pending,
${SANDBOX_PAYOUT_SUFFIXES.sandbox_reversal} is paid and then reversed one step later (money back); any other is paid after two SANDBOX_STEP_MS
steps. The agent's notifications: agent.float.settlement.paid, agent.float.settlement.failed, agent.float.settlement.reversed.`;

function agentOf(request: FastifyRequest): CashAgent {
  const principal = principalAs(request, 'agent');
  return { agentId: principal.agentId, walletId: principal.walletId, handle: principal.handle, mode: principal.mode };
}

/** An agent's float through the rails: top-ups from its phone, settlements to its registered account (docs/agents.md). */
export async function agentFloatRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const service = agentFloatService(context);

  app.get('/api/agent/float/top-ups/quote', {
    config: agentAuth,
    schema: {
      tags: ['agent'],
      summary: 'What a float top-up costs before it is asked for: amount, fee, total the phone pays, and the provider',
      description: `${TOP_UP_FLOW}\n\n400 currency_not_accepted (not the float's currency).`,
      querystring: TopUpQuoteQuery,
      response: { 200: FloatTopUpQuote, ...errors },
    },
  }, async (request) => service.quoteTopUp(agentOf(request), request.query));

  app.post('/api/agent/float/top-ups', {
    config: { ...agentAuth, idempotency: 'required' },
    schema: {
      tags: ['agent'],
      summary: 'Top up the float from the agent\'s mobile money number (Idempotency-Key required)',
      description: `${TOP_UP_FLOW}\n\nIdempotency-Key required: the top-up's id derives from it, so a retry (even after a crash) answers the same
top-up and never prompts the phone twice. 400 invalid_phone, 400 currency_not_accepted, 422 top_up_unavailable (live mode: no provider
collects in the agent's country).`,
      headers: IdempotencyHeader,
      body: CreateTopUpBody,
      response: { 201: TopUpRecord, ...errors },
    },
  }, async (request, reply) => {
    const row = await service.createTopUp(agentOf(request), request.body, derivedId(request, 'agent_float_top_up', 'col')!);
    return reply.status(201).send(floatTopUpRecord(row));
  });

  app.get('/api/agent/float/top-ups', {
    config: agentAuth,
    schema: { tags: ['agent'], summary: 'The float\'s top-ups, newest first', description: TOP_UP_FLOW, querystring: ListQuery, response: { 200: ListOf(TopUpRecord), ...errors } },
  }, async (request) => {
    const agent = agentOf(request);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWalletTopUps(db, agent.walletId, agent.mode, limit, offset, 'agent_float_top_up');
    const rows = await Promise.all(page.rows.map((row) => context.collections.current(row)));
    return { data: rows.map(floatTopUpRecord), total: page.total, limit, offset };
  });

  app.get('/api/agent/float/top-ups/:id', {
    config: agentAuth,
    schema: {
      tags: ['agent'],
      summary: 'A float top-up: poll it while the phone is asked (404 top_up_not_found for another agent\'s)',
      description: TOP_UP_FLOW,
      params: IdParams,
      response: { 200: TopUpRecord, ...errors },
    },
  }, async (request) => floatTopUpRecord(await service.getTopUp(agentOf(request), request.params.id)));

  app.get('/api/agent/float/settlement-account', {
    config: agentAuth,
    schema: {
      tags: ['agent'],
      summary: 'Where the float is settled (422 no_settlement_account until an administrator registers it)',
      description: SETTLEMENT_FLOW,
      response: { 200: AgentSettlementAccount, ...errors },
    },
  }, async (request) => settlementAccountRecord(await service.requireSettlementAccount(agentOf(request).agentId)));

  app.get('/api/agent/float/settlements/quote', {
    config: agentAuth,
    schema: {
      tags: ['agent'],
      summary: 'What a settlement costs, where it goes and what is left of the limits, before confirming it',
      description: `${SETTLEMENT_FLOW}\n\n400 currency_not_accepted (not the float's currency).`,
      querystring: TopUpQuoteQuery,
      response: { 200: SettlementQuote, ...errors },
    },
  }, async (request) => service.quoteSettlement(agentOf(request), request.query));

  /** The settlement route's request as its schemas type it, for its body-credential callbacks (http/idempotency.ts). */
  type SettleRequest = FastifyRequest<{ Body: Static<typeof CreateSettlementBody> }>;
  app.post('/api/agent/float/settlements', {
    config: {
      ...agentAuth,
      idempotency: 'required',
      // The secret stays out of the stored request hash; a wrong secret does not use the key up.
      idempotencyBodyCredential: {
        scope: (request: SettleRequest) => `agent:${principalAs(request, 'agent').agentId}`,
        secrets: ['secret'],
        beforeReplay: async (request: SettleRequest) => {
          await service.checkSecret(principalAs(request, 'agent').agentId, request.body.secret);
        },
        forgetStatuses: [403],
      },
    },
    schema: {
      tags: ['agent'],
      summary: 'Settle float money out to the agent\'s registered account, confirmed with the agent\'s secret (Idempotency-Key required)',
      description: `${SETTLEMENT_FLOW}\n\nIdempotency-Key required: the settlement's id derives from it, so a retry answers the same settlement and
pays nothing twice; the secret is checked again on a replay. 403 wrong_agent_secret, 400 currency_not_accepted, 400
destination_currency_mismatch, 422 no_settlement_account, 422 insufficient_funds, 422 settlement_limit_exceeded, 422
settlement_daily_limit_exceeded, 422 rail_unavailable (live: no payout provider for the account's country), 422 amount_not_payable (live:
the provider cannot pay that amount, e.g. M-Pesa pays whole shillings only; nothing is debited).`,
      headers: IdempotencyHeader,
      body: CreateSettlementBody,
      response: { 201: WithdrawalRecord, ...errors },
    },
  }, async (request, reply) => {
    const id = derivedId(request, 'agent_settlement', 'ast')!;
    const created = await service.createSettlement(agentOf(request), request.body, id);
    let row = created.row;
    if (created.created && row.scenario === 'provider') {
      // Submitted to the payout adapter now; the scheduler retries if this process dies first.
      await context.payments.runPayment(row.id);
      row = (await findWithdrawal(db, row.id, 'agent_settlement')) ?? row;
    }
    return reply.status(201).send(settlementRecord(row));
  });

  app.get('/api/agent/float/settlements', {
    config: agentAuth,
    schema: { tags: ['agent'], summary: 'The float\'s settlements, newest first', description: SETTLEMENT_FLOW, querystring: ListQuery, response: { 200: ListOf(WithdrawalRecord), ...errors } },
  }, async (request) => {
    const agent = agentOf(request);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWithdrawals(db, agent.walletId, agent.mode, limit, offset, 'agent_settlement');
    return { data: page.rows.map(settlementRecord), total: page.total, limit, offset };
  });

  app.get('/api/agent/float/settlements/:id', {
    config: agentAuth,
    schema: {
      tags: ['agent'],
      summary: 'A settlement, with its timeline (404 settlement_not_found for another agent\'s)',
      description: SETTLEMENT_FLOW,
      params: IdParams,
      response: { 200: WithdrawalRecord, ...errors },
    },
  }, async (request) => {
    const agent = agentOf(request);
    const row = await findWithdrawal(db, request.params.id, 'agent_settlement');
    if (!row || row.source_wallet_id !== agent.walletId || row.mode !== agent.mode) throw notFound('settlement_not_found', `No settlement ${request.params.id.slice(0, 80)} of this agent`);
    return settlementRecord(row);
  });

  app.put('/api/admin/agents/:agentId/settlement-account', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      summary: 'Register (or replace) where an agent\'s float is settled',
      description: `The agent's bank account or mobile money number, checked like a merchant's settlement account: the account itself, that it
can be paid (the rail in its country; live: a configured payout provider) and the holder's name (the provider's account resolve where
one is configured, the sandbox in test mode; else accountName as given). Its country's currency must be the float's (400
destination_currency_mismatch). An agent settles only to this account, so a leaked agent secret cannot send the float elsewhere.
Settlements already made keep the destination they paid. 404 agent_not_found, 400 account_number_invalid, 400 invalid_phone, 422
rail_unavailable, 422 account_not_resolved (sandbox: numbers ending 0009), 422 account_name_required, 503 account_resolve_unavailable.
The body's default field is ignored (an agent has one account).`,
      params: Type.Object({ agentId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }) }),
      body: CreateSettlementAccountBody,
      response: { 200: AgentSettlementAccount, ...errors, 503: ErrorBody },
    },
  }, async (request) => settlementAccountRecord(await service.registerSettlementAccount(request.params.agentId, request.body)));
}
