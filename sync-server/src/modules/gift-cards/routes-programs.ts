import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import { toMinor } from '@tapline/shared/money';
import {
  CreateGiftCardProgramBody,
  CreateRewardRuleBody,
  CreateSubscriptionPlanBody,
  EvaluateRewardBody,
  EvaluateRewardResponse,
  GiftCardProgramDetail,
  GiftCardProgramIssueBody,
  GiftCardProgramIssueResponse,
  GiftCardProgramRecord,
  ListOf,
  ListQuery,
  RewardRuleListQuery,
  RewardRuleRecord,
  SubscriptionActivationRecord,
  SubscriptionPlanRecord,
  UpdateGiftCardProgramBody,
  UpdateRewardRuleBody,
  UpdateSubscriptionPlanBody,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { newId } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { computeAnalytics } from './analytics.ts';
import type { RateSource } from '../fx/index.ts';
import { derivedId } from '../../http/idempotency.ts';
import { withoutSecrets } from './idempotency.ts';
import { issuerOf } from './principals.ts';
import { activationRecord, planRecord, programRecord, rewardRuleRecord } from './records.ts';
import { giftCardErrors } from './routes-issuer.ts';
import type { GiftCards } from './service.ts';
import {
  findProgram,
  findRewardRule,
  insertProgram,
  insertRewardRule,
  listPrograms,
  listRewardRules,
  saveRewardRule,
  updateProgram,
} from './store.ts';
import {
  findPlan,
  insertPlan,
  listActivations,
  listPlans,
  updatePlan,
} from '../subscriptions/index.ts';
import { parsePercent } from './validation.ts';

const merchantOnly = { auth: ['merchant'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

function programNotFound(id: string) {
  return notFound('program_not_found', `No gift card program ${id}`);
}

function ruleNotFound(id: string) {
  return notFound('reward_rule_not_found', `No reward rule ${id}`);
}

/** 0 stays 0 (a rule for every spend); anything else follows the money rules. */
function minSpendMinor(value: number, currency: string): number {
  return value === 0 ? 0 : toMinor(value, currency);
}

/** B2B programs, cashback reward rules and the subscription plans a card can gift. Merchant key only. */
export async function programRoutes(app: TypedApp, context: AppContext, service: GiftCards, rates: RateSource): Promise<void> {
  const { db } = context;
  const tags = ['gift-cards'];

  // Programs ------------------------------------------------------------------------------

  app.post('/api/merchant/gift-card-programs', {
    config: merchantOnly,
    schema: { tags, summary: 'Create a gift card program {name, description}', body: CreateGiftCardProgramBody, response: { 201: GiftCardProgramRecord, ...giftCardErrors } },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const body = request.body;
    const now = context.now();
    const row = await insertProgram(db, {
      id: newId('gcp'),
      merchant_id: principal.merchantId,
      mode: principal.mode,
      name: body.name.trim(),
      description: body.description?.trim() || null,
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    return reply.status(201).send(programRecord(row));
  });

  app.get('/api/merchant/gift-card-programs', {
    config: merchantOnly,
    schema: { tags, summary: 'List the merchant\'s programs, newest first', querystring: ListQuery, response: { 200: ListOf(GiftCardProgramRecord), ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listPrograms(db, principal.merchantId, principal.mode, limit, offset);
    return { data: page.rows.map(programRecord), total: page.total, limit, offset };
  });

  app.get('/api/merchant/gift-card-programs/:id', {
    config: merchantOnly,
    schema: { tags, summary: 'A program with the analytics of its cards', params: IdParams, response: { 200: GiftCardProgramDetail, ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const program = await findProgram(db, id, principal.merchantId, principal.mode);
    if (!program) throw programNotFound(id);
    const issuer = await issuerOf(db, request);
    await service.expireDue();
    const analytics = await computeAnalytics(db, rates, { filter: { programId: program.id }, type: 'program', id: program.id, homeCurrency: issuer.homeCurrency });
    return { ...programRecord(program), analytics };
  });

  app.patch('/api/merchant/gift-card-programs/:id', {
    config: merchantOnly,
    schema: {
      tags,
      summary: 'Rename a program or archive it (status archived or archived true; an archived program issues nothing)',
      params: IdParams,
      body: UpdateGiftCardProgramBody,
      response: { 200: GiftCardProgramRecord, ...giftCardErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const body = request.body;
    const status = body.status ?? (body.archived === undefined ? undefined : body.archived ? 'archived' : 'active');
    const description = body.description === undefined ? undefined : body.description === null ? null : body.description.trim() || null;
    const row = await updateProgram(db, id, principal.merchantId, principal.mode, { name: body.name?.trim(), description, status, now: context.now() });
    if (!row) throw programNotFound(id);
    return programRecord(row);
  });

  app.post('/api/merchant/gift-card-programs/:id/issue', {
    config: { ...merchantOnly, idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: {
      tags,
      summary: 'Issue cards to employees: each locked to its @handle, delivered at deliverAt when given; known externalRefs are skipped',
      description:
        'Rows {handle, amount, currency, deliverAt?, externalRef?}, at most 500, each validated on its own (failed: index, code, reason). A row whose externalRef this program already issued (earlier, or in an earlier row of this call) is listed in skipped and not charged. The issued cards are funded in ONE database transaction with one ledger transfer; rows that do not fit the balance fail with insufficient_funds. Optional message, designTheme and expiresInMonths apply to every card. 201 even when nothing was issued; 409 program_archived.',
      params: IdParams,
      body: GiftCardProgramIssueBody,
      response: { 201: GiftCardProgramIssueResponse, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const program = await findProgram(db, id, principal.merchantId, principal.mode);
    if (!program) throw programNotFound(id);
    const body = request.body;
    const result = await service.issueProgram(await issuerOf(db, request), program, body, { batchId: derivedId(request, 'gift_card_batch', 'gcb') });
    const { created: _created, ...answer } = result;
    return reply.status(201).send(answer);
  });

  // Reward rules ----------------------------------------------------------------------------

  app.post('/api/merchant/reward-rules', {
    config: merchantOnly,
    schema: {
      tags,
      summary: 'Create a cashback rule {name, minSpend, percent, maxReward?, currency}',
      body: CreateRewardRuleBody,
      response: { 201: RewardRuleRecord, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const body = request.body;
    const now = context.now();
    const row = await insertRewardRule(db, {
      id: newId('rwr'),
      merchant_id: principal.merchantId,
      mode: principal.mode,
      name: body.name.trim(),
      min_spend: minSpendMinor(body.minSpend, body.currency),
      percent: parsePercent(body.percent),
      max_reward: body.maxReward === undefined ? null : toMinor(body.maxReward, body.currency),
      currency: body.currency,
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    return reply.status(201).send(rewardRuleRecord(row));
  });

  app.get('/api/merchant/reward-rules', {
    config: merchantOnly,
    schema: { tags, summary: 'List reward rules (status filter), newest first', querystring: RewardRuleListQuery, response: { 200: ListOf(RewardRuleRecord), ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listRewardRules(db, principal.merchantId, principal.mode, query.status, limit, offset);
    return { data: page.rows.map(rewardRuleRecord), total: page.total, limit, offset };
  });

  app.get('/api/merchant/reward-rules/:id', {
    config: merchantOnly,
    schema: { tags, summary: 'A reward rule', params: IdParams, response: { 200: RewardRuleRecord, ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const row = await findRewardRule(db, id, principal.merchantId, principal.mode);
    if (!row) throw ruleNotFound(id);
    return rewardRuleRecord(row);
  });

  app.patch('/api/merchant/reward-rules/:id', {
    config: merchantOnly,
    schema: {
      tags,
      summary: 'Update a rule, or archive it (status archived or archived true); maxReward null removes the cap',
      params: IdParams,
      body: UpdateRewardRuleBody,
      response: { 200: RewardRuleRecord, ...giftCardErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const body = request.body;
    const row = await findRewardRule(db, id, principal.merchantId, principal.mode);
    if (!row) throw ruleNotFound(id);
    const currency = body.currency ?? row.currency;
    const status = body.status ?? (body.archived === undefined ? row.status : body.archived ? 'archived' : 'active');
    const saved = await saveRewardRule(db, {
      ...row,
      name: body.name?.trim() ?? row.name,
      min_spend: body.minSpend === undefined ? row.min_spend : minSpendMinor(body.minSpend, currency),
      percent: body.percent === undefined ? row.percent : parsePercent(body.percent),
      max_reward: body.maxReward === undefined ? row.max_reward : body.maxReward === null ? null : toMinor(body.maxReward, currency),
      currency,
      status,
      updated_at: context.now(),
    });
    return rewardRuleRecord(saved);
  });

  app.post('/api/merchant/rewards/evaluate', {
    config: { ...merchantOnly, idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: {
      tags,
      summary: 'Evaluate a spend: the best matching active rule issues a cashback card locked to the customer',
      description:
        'Rules of this merchant and mode in the spend\'s currency with minSpend <= spendAmount compete; the reward is floor(spend x percent / 100) in minor units, capped at maxReward; the largest reward wins (then the higher percent, then the older rule). The card (paid from the merchant\'s wallet, exempt from the 24-hour limit) is in the answer, 201, with its code; no matching rule: 200 rewarded false.',
      body: EvaluateRewardBody,
      response: { 200: EvaluateRewardResponse, 201: EvaluateRewardResponse, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const result = await service.evaluateReward(await issuerOf(db, request), body, { cardId: derivedId(request, 'gift_card', 'gcard') });
    const answer = {
      rewarded: result.rewarded,
      reward: result.card ? result.card.amount : 0,
      currency: result.currency,
      rule: result.rule ? rewardRuleRecord(result.rule) : null,
      card: result.card,
    };
    const status = result.rewarded ? 201 : 200;
    return reply.status(status).send(answer);
  });

  // Subscription plans ------------------------------------------------------------------------

  const planTags = ['gift-cards', 'subscriptions'];

  app.post('/api/merchant/subscription-plans', {
    config: merchantOnly,
    schema: {
      tags: planTags,
      summary: 'Create a monthly subscription plan a gift card can carry (subscriptionPlanId + giftMonths)',
      description: 'A plan is a name, a monthly price and a currency. Wallet holders subscribe to it at POST /api/subscriptions (charged monthly from their wallet); a subscription gift card of the plan, redeemed, records an activation (GET .../activations) and pays months of it.',
      body: CreateSubscriptionPlanBody,
      response: { 201: SubscriptionPlanRecord, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const body = request.body;
    const now = context.now();
    const row = await insertPlan(db, {
      id: newId('plan'),
      merchant_id: principal.merchantId,
      mode: principal.mode,
      name: body.name.trim(),
      price: toMinor(body.price, body.currency),
      currency: body.currency,
      billing_interval: 'month',
      active: true,
      created_at: now,
      updated_at: now,
    });
    return reply.status(201).send(planRecord(row));
  });

  app.get('/api/merchant/subscription-plans', {
    config: merchantOnly,
    schema: { tags: planTags, summary: 'List subscription plans', querystring: ListQuery, response: { 200: ListOf(SubscriptionPlanRecord), ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listPlans(db, principal.merchantId, principal.mode, limit, offset);
    return { data: page.rows.map(planRecord), total: page.total, limit, offset };
  });

  const ownPlan = async (merchantId: string, mode: string, id: string) => {
    const plan = await findPlan(db, id);
    if (!plan || plan.merchant_id !== merchantId || plan.mode !== mode) throw notFound('subscription_plan_not_found', `No subscription plan ${id}`);
    return plan;
  };

  app.get('/api/merchant/subscription-plans/:id', {
    config: merchantOnly,
    schema: { tags: planTags, summary: 'A subscription plan', params: IdParams, response: { 200: SubscriptionPlanRecord, ...giftCardErrors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    return planRecord(await ownPlan(principal.merchantId, principal.mode, request.params.id));
  });

  app.patch('/api/merchant/subscription-plans/:id', {
    config: merchantOnly,
    schema: {
      tags: planTags,
      summary: 'Rename a plan, or retire it (active false): no new subscriptions or gifts of it; running subscriptions keep renewing',
      params: IdParams,
      body: UpdateSubscriptionPlanBody,
      response: { 200: SubscriptionPlanRecord, ...giftCardErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const body = request.body;
    const row = await updatePlan(db, id, principal.merchantId, principal.mode, { name: body.name?.trim() || undefined, active: body.active, now: context.now() });
    if (!row) throw notFound('subscription_plan_not_found', `No subscription plan ${id}`);
    return planRecord(row);
  });

  app.get('/api/merchant/subscription-plans/:id/activations', {
    config: merchantOnly,
    schema: {
      tags: planTags,
      summary: 'Activations of a plan by redeemed subscription gifts, oldest first',
      params: IdParams,
      querystring: ListQuery,
      response: { 200: ListOf(SubscriptionActivationRecord), ...giftCardErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const plan = await ownPlan(principal.merchantId, principal.mode, request.params.id);
    const { limit = 20, offset = 0 } = request.query;
    const page = await listActivations(db, plan.id, limit, offset);
    return { data: page.rows.map(activationRecord), total: page.total, limit, offset };
  });
}
