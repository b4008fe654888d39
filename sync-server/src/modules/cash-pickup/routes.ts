import { LOOKUP_ID_LENGTH_MAX, PHONE_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { idempotencyScope } from '../../auth/principal.ts';
import { cashPickupService } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };

const PickupRecord = Type.Object({
  id: Type.String({ description: 'The pickup: pku_ + the payment id\'s key' }),
  paymentId: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('paid'), Type.Literal('expired')]),
  amount: Type.Number({ description: 'What the agent pays out, major units of the recipient country\'s currency' }),
  currency: Type.String(),
  country: Type.String({ description: 'The recipient\'s country: only its agents pay it' }),
  phone: Type.String({ description: 'The recipient\'s phone (E.164), which the agent asks for with the code' }),
  expiresAt: Type.String({ format: 'date-time', description: 'Not collected by then: the payment fails and the money goes back to the sender' }),
  commission: Type.Number({ description: 'What the platform paid the agent on top (AGENT_CASH_OUT_COMMISSION_PCT), major units' }),
  endedAt: Type.Optional(Type.String({ format: 'date-time' })),
  agentId: Type.Optional(Type.String({ description: 'The agent that paid it' })),
});

/** The code stays out of the stored request hash; a wrong code or a lock-out is not kept, so a corrected retry runs. */
const codeAsCredential = {
  scope: (request: FastifyRequest) => idempotencyScope(request.credential.state === 'valid' ? request.credential.principal : undefined),
  secrets: ['code'],
  beforeReplay: async () => undefined,
  forgetStatuses: [403, 429],
};

/** Cash pickup on the agent network (docs/payouts.md "Cash pickup"): the sender's code, the agent's payout. */
export async function cashPickupRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = cashPickupService(context);

  app.post('/api/payments/:id/pickup-code', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['payments'],
      summary: 'A one-time code for a cash pickup payment, for the sender to pass to the recipient',
      description:
        'A live payment on the cash_pickup rail waits at Tapline\'s agents of the recipient\'s country until she collects it with her phone ' +
        'and this code (8 digits, shown only in this answer; a new one replaces the last and the wrong-code count starts again). 404 ' +
        '`payment_not_found` for another merchant\'s or mode\'s payment; 422 `not_a_cash_pickup` for a payment on another rail (or in test mode, ' +
        'where the sandbox pays it); 409 `cash_pickup_not_ready` while it is still being handed to the network, 409 `cash_pickup_ended` once ' +
        'collected or expired.',
      params: Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) }),
      response: { 201: Type.Intersect([PickupRecord, Type.Object({ code: Type.String({ description: '"1234 5678": give it to the recipient only' }) })]), ...errors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    return reply.status(201).send(await service.issueCode({ merchantId: principal.merchantId, mode: principal.mode }, request.params.id));
  });

  app.post('/api/agent/cash-pickups', {
    config: { auth: ['agent'], idempotency: 'optional', idempotencyBodyCredential: codeAsCredential },
    schema: {
      tags: ['agent'],
      summary: 'Pay out a cash pickup: the recipient gives her phone and the sender\'s code, the agent hands her the cash',
      description:
        'Body {phone (E.164), code (8 digits; spaces and dashes ignored)}. Pays the recipient\'s pickup in the agent\'s country: in one ' +
        'transaction the pickup ends `paid`, its payment completes (payment.completed to the sender) and the money moves from the agent ' +
        'network\'s rail clearing into the agent\'s float, plus the platform\'s commission (AGENT_CASH_OUT_COMMISSION_PCT) from its fees. ' +
        'A wrong code (or no pickup for that phone) is 403 `wrong_pickup_code`; every try counts against the phone\'s active pickups and ' +
        'after 5 wrong ones they refuse codes for 15 minutes (429 `pickup_attempts_exceeded`). 410 `cash_pickup_expired` past its expiry ' +
        '(the money goes back to the sender), 409 `cash_pickup_ended` when it was paid or expired meanwhile, 422 `currency_mismatch` when the ' +
        'float is in another currency; 400 `cash_pickup_code_invalid`, `phone_invalid`. Send an Idempotency-Key: a retry answers the first payout.',
      body: Type.Object({
        phone: Type.String({ minLength: 1, maxLength: PHONE_LENGTH_MAX, description: 'The recipient\'s phone, E.164' }),
        code: Type.String({ minLength: 1, maxLength: 20, description: 'The code the sender passed her' }),
      }),
      response: {
        201: Type.Intersect([PickupRecord, Type.Object({
          receiverName: Type.Union([Type.String(), Type.Null()], { description: 'The recipient\'s name as the sender gave it, to check against her ID' }),
          floatBalance: Type.Number({ description: 'The agent\'s float in this currency after the payout, major units' }),
        })]),
        ...errors,
      },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'agent');
    return reply.status(201).send(await service.payOut({ agentId: principal.agentId, walletId: principal.walletId, mode: principal.mode }, request.body));
  });
}
