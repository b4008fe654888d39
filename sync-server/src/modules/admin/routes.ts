import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { toMajor, toMinor } from '@tapline/shared/money';
import {
  CreateAgentBody,
  CreateAgentResponse,
  CreateMerchantBody,
  CreateMerchantResponse,
  CreateWalletBody,
  AdminWalletTierRecord,
  CreditWalletBody,
  CreditWalletResponse,
  ErrorBody,
  ListOf,
  ListQuery,
  MerchantRecord,
  SetWalletTierBody,
  UpdateMerchantBody,
  WalletRecord,
  WalletTierRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { canonicalHandle, displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { validateWebhookUrl } from '../../http/webhook-url.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import { type MerchantRow, findMerchant, listMerchants, updateMerchant } from '../merchants/index.ts';
import { WALLET_TIERS, WALLET_TIER_NAMES, isWalletTier } from '@tapline/shared/wallet-tiers';
import { tierRecord, tierStanding } from '../wallets/index.ts';
import { adminService } from './service.ts';

const admin = { auth: ['admin'] } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody };

function merchantRecord(row: MerchantRow) {
  return {
    id: row.id,
    name: row.name,
    handle: displayHandle(row.handle),
    country: row.country,
    currency: row.currency,
    webhookUrl: row.webhook_url,
    rateLimitMultiplier: row.rate_limit_multiplier,
    createdAt: row.created_at.toISOString(),
  };
}

/** The identity fields every new wallet owner gives, normalised: handle, mode, country, currency. */
function walletIdentity(body: { handle: string; mode?: Mode | undefined; country: string; currency: string }) {
  return { handle: canonicalHandle(body.handle), mode: body.mode ?? 'test', country: supportedCountry(body.country), currency: supportedCurrency(body.currency) } as const;
}

/** Provisioning (CONTRACT.md): merchants, wallets, agents and sandbox funds. Admin token only. */
export async function adminRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const service = adminService(context);

  app.post('/api/admin/merchants', {
    config: admin,
    schema: {
      tags: ['admin'],
      summary: 'Create a merchant with test and live keys and a wallet at its handle',
      description: 'With ownerEmail the answer carries the dashboard owner\'s one-time set-up link (ownerSetupUrl); an address that already signs in to a merchant answers 409 email_taken.',
      body: CreateMerchantBody,
      response: { 201: CreateMerchantResponse, ...errors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const handle = canonicalHandle(body.handle);
    const country = supportedCountry(body.country);
    const currency = supportedCurrency(body.currency);
    // Admin provisioning may point at a developer's machine; live deliveries re-check the address.
    const webhookUrl = body.webhookUrl ? validateWebhookUrl(body.webhookUrl, 'test') : null;
    const created = await service.createMerchant({ name: body.name.trim(), handle, country, currency, webhookUrl, ownerEmail: body.ownerEmail });
    // The dashboard owner's set-up link (modules/merchant-users), when ownerEmail was given.
    const { owner, webhookSecret } = created;
    return reply.status(201).send({
      ...merchantRecord(created.merchant),
      testKey: created.testKey,
      liveKey: created.liveKey,
      webhookSecret,
      ...(owner ? { ownerSetupUrl: owner.url, ownerSetupExpiresAt: owner.expiresAt.toISOString() } : {}),
    });
  });

  app.get('/api/admin/merchants', {
    config: admin,
    schema: { tags: ['admin'], summary: 'List merchants', querystring: ListQuery, response: { 200: ListOf(MerchantRecord), ...errors } },
  }, async (request) => {
    const { limit = 20, offset = 0 } = request.query;
    const page = await listMerchants(db, limit, offset);
    return { data: page.rows.map(merchantRecord), total: page.total, limit, offset };
  });

  app.get('/api/admin/merchants/:id', {
    config: admin,
    schema: { tags: ['admin'], summary: 'A merchant', params: Type.Object({ id: Type.String() }), response: { 200: MerchantRecord, ...errors } },
  }, async (request) => {
    const { id } = request.params;
    const merchant = await findMerchant(db, id);
    if (!merchant) throw notFound('merchant_not_found', `No merchant ${id}`);
    return merchantRecord(merchant);
  });

  app.patch('/api/admin/merchants/:id', {
    config: admin,
    schema: {
      tags: ['admin'],
      summary: 'Change a merchant: rateLimitMultiplier (1..1000) raises its keys\' and terminals\' limits',
      params: Type.Object({ id: Type.String() }),
      body: UpdateMerchantBody,
      response: { 200: MerchantRecord, ...errors },
    },
  }, async (request) => {
    const { id } = request.params;
    const body = request.body;
    const merchant = await updateMerchant(db, id, { rateLimitMultiplier: body.rateLimitMultiplier, name: body.name?.trim() });
    credentialsChanged();
    if (!merchant) throw notFound('merchant_not_found', `No merchant ${id}`);
    return merchantRecord(merchant);
  });

  app.post('/api/admin/wallets', {
    config: admin,
    schema: { tags: ['admin'], summary: 'Create a customer wallet', body: CreateWalletBody, response: { 201: WalletRecord, ...errors } },
  }, async (request, reply) => {
    const body = request.body;
    const { handle, mode, country, currency } = walletIdentity(body);
    const destinations = (body.destinations ?? []).map((destination) => ({
      ...destination,
      country: supportedCountry(destination.country, 'destinations.country'),
      currency: supportedCurrency(destination.currency, 'destinations.currency'),
    }));
    const wallet = await service.createWallet(
      { handle, mode, country, currency },
      { pin: body.pin, displayName: body.displayName?.trim() ?? null, preferredRail: body.preferredRail ?? null, destinations },
    );
    return reply.status(201).send({
      handle: displayHandle(wallet.handle),
      displayName: wallet.display_name,
      country: wallet.country,
      currency: wallet.currency,
      mode: wallet.mode,
      createdAt: wallet.created_at.toISOString(),
    });
  });

  app.post('/api/admin/wallets/:handle/credit', {
    config: { ...admin, idempotency: 'optional' },
    schema: {
      tags: ['admin'],
      summary: 'Credit a wallet from the platform funding account (sandbox faucet, agent cash-in)',
      params: Type.Object({ handle: Type.String() }),
      body: CreditWalletBody,
      response: { 200: CreditWalletResponse, ...errors, 422: ErrorBody },
    },
  }, async (request) => {
    const body = request.body;
    const handle = canonicalHandle(request.params.handle);
    const mode = body.mode ?? 'test';
    const currency = supportedCurrency(body.currency);
    const amount = toMinor(body.amount, currency);
    const transferId = idempotentId(request, 'credit') ?? newId('trf');
    const balance = await service.creditWallet({ handle, mode, currency, amount, transferId });
    return { transferId, handle: displayHandle(handle), mode, amount: toMajor(amount, currency), currency, balance: toMajor(balance, currency) };
  });

  app.post('/api/admin/agents', {
    config: admin,
    schema: { tags: ['admin'], summary: 'Create an agent with a wallet at its handle', body: CreateAgentBody, response: { 201: CreateAgentResponse, ...errors } },
  }, async (request, reply) => {
    const body = request.body;
    const { handle, mode, country, currency } = walletIdentity(body);
    const agent = await service.createAgent({ handle, mode, country, currency }, body.name.trim());
    return reply.status(201).send({ agentId: agent.id, secret: agent.secret, handle: displayHandle(handle), name: body.name.trim(), mode });
  });

  const TierParams = Type.Object({ handle: Type.String({ maxLength: 100 }) });
  const TierQuery = Type.Object({ mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')])) });
  const TIERS_DESCRIPTION = `A customer wallet's verification tier (docs/wallet-tiers.md): ${WALLET_TIERS.map((tier) => `${tier} (${WALLET_TIER_NAMES[tier]})`).join(', ')}.
Each tier's limits (maximum balance, money in and money out in any 24 hours) are WALLET_TIER<n>_* in US dollars, converted into the
wallet's currency at the FX mid rate. 404 wallet_not_found; 400 wallet_not_tiered for a merchant's or an agent's wallet.`;

  app.get('/api/admin/wallets/:handle/tier', {
    config: admin,
    schema: {
      tags: ['admin'],
      summary: 'A customer wallet\'s verification tier, its limits and what is left of them',
      description: TIERS_DESCRIPTION,
      params: TierParams,
      querystring: TierQuery,
      response: { 200: WalletTierRecord, ...errors },
    },
  }, async (request) => {
    const wallet = await service.tieredWallet(canonicalHandle(request.params.handle), request.query.mode ?? 'test');
    return tierRecord(await tierStanding(context, db, wallet), wallet.tier_changed_at);
  });

  app.put('/api/admin/wallets/:handle/tier', {
    config: admin,
    schema: {
      tags: ['admin'],
      summary: 'Change a customer wallet\'s verification tier (raises or lowers its limits at once)',
      description: `${TIERS_DESCRIPTION}\n\nBody {tier, mode? (default test), reason?}. 400 unknown_tier for a tier that does not exist. The
holder is told in her notifications (GET /api/wallet/notifications, kind wallet.tier.changed, data {from, to, reason}) in the same
transaction. Lowering a tier refuses nothing already done: a wallet above its new maximum balance keeps its money, and only
receives again once below it.`,
      params: TierParams,
      body: SetWalletTierBody,
      response: { 200: AdminWalletTierRecord, ...errors },
    },
  }, async (request) => {
    const { tier, reason } = request.body;
    if (!isWalletTier(tier)) throw badRequest('unknown_tier', `There is no tier ${tier}: the tiers are ${WALLET_TIERS.join(', ')}`);
    const { wallet, previousTier, changedAt } = await service.setWalletTier(canonicalHandle(request.params.handle), request.body.mode ?? 'test', tier, reason);
    return { handle: displayHandle(wallet.handle), mode: wallet.mode, previousTier, ...tierRecord(await tierStanding(context, db, wallet), changedAt) };
  });
}
