import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { type Static, Type } from 'typebox';
import {
  CancelSubscriptionBody,
  CreateSubscriptionBody,
  ErrorBody,
  ListOf,
  ListQuery,
  SubscriptionChargeRecord,
  SubscriptionListQuery,
  SubscriptionRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../auth/hooks.ts';
import { badRequest, forbidden } from '../../http/errors.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { idempotencyScope } from '../../auth/principal.ts';
import { canonicalHandle } from '../../http/validate.ts';
import { checkWalletPin, requireWallet } from '../wallets/index.ts';
import { type SubscriptionJobs, renewalJobs } from './jobs.ts';
import { chargeRecord, subscriptionRecord } from './records.ts';
import { type Subscriber, type SubscriptionService, buildSubscriptionService } from './service.ts';
import { type PlanRow, type SubscriptionScope, listCharges, listSubscriptions } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
/** The merchant (its subscribers) and the wallet holder (their own subscriptions). */
const merchantOrHolder = { auth: ['merchant', 'wallet'] } as const;
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }) });
const tags = ['subscriptions'];

const MODEL = `Stripe-like subscriptions: a wallet holder (@handle) subscribed to a merchant's monthly plan
(/api/merchant/subscription-plans), charged each period from their wallet to the merchant's wallet in the plan's
currency: one ledger transfer per charge, its id derived from the subscription and the period number, so no
period is ever paid twice. States: active (paid through currentPeriodEnd), past_due (a renewal failed: retried 1,
3 and 5 days after each failure; a retry that pays makes it active again, the new period running on from the
old end), cancelled (final; cancellationReason cancellation_requested or payment_failed). Events to the merchant's
webhook, written with the state change: subscription.charged, subscription.charge_failed,
subscription.cancelled, with {id, event, subscriptionId, planId, merchantId, customerHandle, amount, currency,
period, periodStart, periodEnd, status, failureReason?, timestamp}. A subscription gift card of the plan
(subscriptionPlanId + giftMonths), redeemed while subscribed, extends the current period (or, once it has ended,
pays the next ones from its end). No proration and no refunds on cancellation.`;

/** Whose subscriptions the caller sees. */
function scopeOf(request: FastifyRequest): SubscriptionScope {
  const principal = principalOf(request);
  if (principal.kind === 'merchant') return { merchantId: principal.merchantId, mode: principal.mode };
  if (principal.kind === 'wallet') return { walletId: principal.walletId, mode: principal.mode };
  throw forbidden('credential_not_allowed', 'Subscriptions need a merchant API key or a wallet session token');
}

/** One service per app context, shared by the routes and the renewal worker. */
const services = new WeakMap<AppContext, SubscriptionService>();

export function subscriptionService(context: AppContext): SubscriptionService {
  let service = services.get(context);
  if (!service) {
    service = buildSubscriptionService(context);
    services.set(context, service);
  }
  return service;
}

/** The renewal worker for a context (tests: `subscriptionJobs(server().context).runOnce()`). */
export function subscriptionJobs(context: AppContext, onError: (error: unknown) => void = () => undefined): SubscriptionJobs {
  return renewalJobs(subscriptionService(context), context.config.subscriptionJobIntervalMs, onError);
}

/** Starts the worker when the app is ready and stops it (waiting for a run in flight) on close. */
export function startSubscriptionJobs(app: TypedApp, context: AppContext): void {
  const jobs = subscriptionJobs(context, (error) => app.log.error({ err: error }, 'subscription renewals failed'));
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());
}

/** Spec: "POST or related calls under /api/subscriptions". */
export async function subscriptionRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const service = subscriptionService(context);
  /** The create route's request as its schemas type it, for its body-credential callbacks (http/idempotency.ts). */
  type CreateRequest = FastifyRequest<{ Body: Static<typeof CreateSubscriptionBody> }>;

  /** The customer's consent on the merchant's call: their handle and wallet PIN (with the wallet's lock-out). */
  async function provenCustomer(body: Static<typeof CreateSubscriptionBody>, mode: Subscriber['mode']): Promise<Subscriber> {
    if (body.customerHandle === undefined) throw badRequest('customer_handle_required', 'customerHandle is required with a merchant key: the wallet holder who subscribes');
    if (body.walletPin === undefined) throw badRequest('wallet_pin_required', 'walletPin is required with a merchant key: the customer\'s consent');
    const wallet = await requireWallet(db, canonicalHandle(body.customerHandle), mode);
    await checkWalletPin(db, wallet, body.walletPin, context.now());
    return { walletId: wallet.id, handle: wallet.handle, mode };
  }

  app.post('/api/subscriptions', {
    config: {
      ...merchantOrHolder,
      idempotency: 'optional',
      // The customer's PIN stays out of the stored request hash; a replay asks for it again, and a
      // wrong PIN or a lock-out does not use the key up.
      idempotencyBodyCredential: {
        scope: (request) => idempotencyScope(principalOf(request)),
        secrets: ['walletPin'],
        beforeReplay: async (request: CreateRequest) => {
          const principal = principalOf(request);
          if (principal.kind === 'merchant') await provenCustomer(request.body, principal.mode);
        },
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags,
      summary: 'Subscribe a wallet holder to a plan; the first period is charged at once',
      description: `${MODEL}

Consent: a wallet holder calls with Bearer wallet.<token> and {planId} (any merchant's active plan of the token's mode);
a merchant calls with its key and {planId, customerHandle, walletPin} (its own plans; wrong PIN 403, 5 wrong PINs lock the
wallet for 15 minutes: 429). Without a gift activation of the plan covering now, the first month is charged at once
(insufficient funds: 422 insufficient_funds, nothing created); with one, the subscription starts paid through the
activation's end. 409 subscription_exists when the holder already has a running (active or past_due) subscription to the
plan; 409 subscription_plan_inactive for a retired plan; 404 for another merchant's plan or one of the other mode.
Idempotency-Key honoured: the first answer is replayed, never a second charge.`,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; optional' })) }),
      body: CreateSubscriptionBody,
      response: { 201: SubscriptionRecord, ...errors },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const body = request.body;
    let subscriber: Subscriber;
    let plan: PlanRow;
    if (principal.kind === 'wallet') {
      if (body.customerHandle !== undefined || body.walletPin !== undefined) {
        throw badRequest('customer_fields_not_allowed', 'customerHandle and walletPin are for merchant keys; a wallet session subscribes its own wallet');
      }
      plan = await service.planFor(body.planId, principal.mode, null);
      subscriber = { walletId: principal.walletId, handle: principal.handle, mode: principal.mode };
    } else if (principal.kind === 'merchant') {
      plan = await service.planFor(body.planId, principal.mode, principal.merchantId);
      subscriber = await provenCustomer(body, principal.mode);
    } else {
      throw forbidden('credential_not_allowed', 'Subscriptions need a merchant API key or a wallet session token');
    }
    const derived = idempotentId(request, 'subscription');
    const id = derived ? `sub_${derived.slice(derived.indexOf(':') + 1, derived.indexOf(':') + 33)}` : undefined;
    const row = await service.create(subscriber, plan, id);
    return reply.status(201).send(subscriptionRecord(row));
  });

  app.get('/api/subscriptions', {
    config: merchantOrHolder,
    schema: {
      tags,
      summary: 'List subscriptions, newest first: a merchant key lists its subscribers, a wallet session its own',
      description: 'Filters: status (active, past_due, cancelled) and planId. Only the credential\'s mode.',
      querystring: SubscriptionListQuery,
      response: { 200: ListOf(SubscriptionRecord), ...errors },
    },
  }, async (request) => {
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listSubscriptions(db, scopeOf(request), { status: query.status, planId: query.planId }, limit, offset);
    return { data: page.rows.map(subscriptionRecord), total: page.total, limit, offset };
  });

  app.get('/api/subscriptions/:id', {
    config: merchantOrHolder,
    schema: {
      tags,
      summary: 'A subscription (its merchant or its holder; 404 for anyone else and for the other mode)',
      params: IdParams,
      response: { 200: SubscriptionRecord, ...errors },
    },
  }, async (request) => {
    const { id } = request.params;
    return subscriptionRecord(await service.get(scopeOf(request), id));
  });

  app.get('/api/subscriptions/:id/charges', {
    config: merchantOrHolder,
    schema: {
      tags,
      summary: 'Every attempt to charge the subscription, oldest first: paid (with its ledger transferId) or failed (failureReason)',
      params: IdParams,
      querystring: ListQuery,
      response: { 200: ListOf(SubscriptionChargeRecord), ...errors },
    },
  }, async (request) => {
    const { id } = request.params;
    const subscription = await service.get(scopeOf(request), id);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listCharges(db, subscription.id, limit, offset);
    return { data: page.rows.map(chargeRecord), total: page.total, limit, offset };
  });

  app.post('/api/subscriptions/:id/cancel', {
    config: merchantOrHolder,
    // The body is optional (Stripe's cancel takes none): no body reads as {}.
    preValidation: async (request) => {
      request.body ??= {};
    },
    schema: {
      tags,
      summary: 'Cancel a subscription (its merchant or its holder): at the period\'s end (default) or now',
      description:
        'atPeriodEnd true (default): cancelAtPeriodEnd becomes true, the subscription stays active until currentPeriodEnd, then the renewal job cancels it instead of charging (subscription.cancelled). atPeriodEnd false, or a past_due subscription: status cancelled now (subscription.cancelled). No proration and no refund of the unused part of the period. Already cancelled: 409 subscription_cancelled. Calling again with atPeriodEnd true answers the subscription unchanged.',
      params: IdParams,
      body: CancelSubscriptionBody,
      response: { 200: SubscriptionRecord, ...errors },
    },
  }, async (request) => {
    const { id } = request.params;
    const body = request.body;
    return subscriptionRecord(await service.cancel(scopeOf(request), id, body.atPeriodEnd ?? true));
  });
}
