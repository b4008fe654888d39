import type { Server } from 'socket.io';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { JSON_DEPTH_MAX } from '@tapline/shared/limits';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/database.ts';
import { registerAuth } from './auth/hooks.ts';
import { adminTokenChecker, idempotencyScope } from './auth/principal.ts';
import { registerRateLimits } from './auth/rate-limit.ts';
import { notFound, registerErrorHandling } from './http/errors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerDrain } from './http/drain.ts';
import { registerCors } from './http/cors.ts';
import { registerInputGuard } from './http/input-guard.ts';
import { registerJsonBody } from './http/json-body.ts';
import { loggedRequest } from './http/log-redaction.ts';
import { EventDispatcher, scaledRetryDelays } from './events/dispatcher.ts';
import { webhookRoutes } from './modules/webhooks/index.ts';
import { EmbeddedRateProvider, type FxRateProvider, FxRateService, UrlRateProvider, fxRoutes } from './modules/fx/index.ts';
import { type PayoutProvider, paymentRoutes, paymentScheduler, providerLeaseFor } from './modules/payments/index.ts';
import { RAIL_MODULES, type RailAdapterModule, createRails, railCallbackRoutes } from './rails/index.ts';
import { type BillerProvider, billRoutes } from './modules/bills/index.ts';
import { reconciliationRoutes, reconciliationService } from './modules/reconciliation/index.ts';
import { linkRoutes } from './modules/links/index.ts';
import { identityRoutes } from './modules/identity/index.ts';
import { adminRoutes } from './modules/admin/index.ts';
import { agentRoutes } from './modules/agent/index.ts';
import { agentNetworkProvider, cashPickupRoutes } from './modules/cash-pickup/index.ts';
import { healthRoutes, readinessRoutes } from './modules/health/index.ts';
import { merchantRoutes, sealStoredWebhookSecrets } from './modules/merchants/index.ts';
import { terminalRoutes } from './modules/terminals/index.ts';
import { walletRoutes } from './modules/wallets/index.ts';
import { holderWearableRoutes, refreshNoPinLimitDefaults, startNoPinLimitDefaultsRefresh, walletPayRoutes, wearableRoutes } from './modules/wearables/index.ts';
import { posRoutes, startPosSessionSweeper } from './modules/pos/index.ts';
import { productRoutes, saleRoutes } from './modules/products/index.ts';
import { tillStaffRoutes } from './modules/till-staff/index.ts';
import { payrollRoutes } from './modules/payroll/index.ts';
import { webRoutes } from './web/routes.ts';
import { dashboardRoutes } from './web/dashboard.ts';
import { giftCardRoutes, startGiftCardJobs } from './modules/gift-cards/index.ts';
import { type MailTransport, startStoreJobs, storeRoutes } from './modules/shop/index.ts';
import { startSubscriptionJobs, subscriptionRoutes } from './modules/subscriptions/index.ts';
import { buildValidator } from './http/validation.ts';
import { createSecretBox, keyFromFile } from './auth/secret-box.ts';
import { currentSigner, offlineRoutes, startOfflineJobs } from './modules/offline/index.ts';
import { checkoutRoutes } from './modules/checkout/index.ts';
import { collectionRoutes, collectionService, startCollectionJobs } from './modules/collections/index.ts';
import { creditBankTransfer, knownBankTransfers, walletMoneyRoutes } from './modules/wallet-money/index.ts';
import { payoutJobs, payoutRoutes, payoutSenderOf } from './modules/payouts/index.ts';
import { attachSyncEndpoint } from './sync/socket.ts';
import { SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { registerMetrics } from './metrics/plugin.ts';
import { SyncNotifier } from './events/sync-notifier.ts';
import { registerOpenApi } from './openapi/register.ts';
import { merchantKeyRoutes, merchantUserRoutes, salesRoutes, sessionResolver } from './modules/merchant-users/index.ts';

export interface BuildAppOptions {
  config: Config;
  db: Database;
  /** SHA-256 of the admin token (see ensureAdminToken). */
  adminTokenHash: string;
  now?: () => Date;
  /** Scales every rate limit; tests use it to reach a limit with few requests. */
  rateLimitScale?: number;
  /** Pino logger; false in tests. */
  logger?: boolean;
  /** Where the log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /**
   * Start the background workers (event dispatcher, payment scheduler) when the app is ready;
   * default true. Tests pass false and run them deterministically (context.events.runOnce()).
   */
  backgroundJobs?: boolean;
  /** Live payout and bill adapters (none by default: live rails other than wallet answer 422). */
  payoutProviders?: MoneyServiceOptions['payoutProviders'];
  billerProviders?: MoneyServiceOptions['billerProviders'];
  /** The payment providers' variables instead of the configuration's (tests point adapters at fakes). */
  providerEnv?: Readonly<Record<string, string | undefined>>;
  /** The provider adapters to build (default: every one the server ships, rails/modules.ts). */
  railModules?: readonly RailAdapterModule[];
  /** Replaces the configured FX rate provider (tests). */
  fxProvider?: MoneyServiceOptions['fxProvider'];
  /** Replaces the configured mail transport (SMTP_URL, or disabled) of the store's e-mail (tests). */
  mailTransport?: MailTransport;
  /** The key stored secrets are sealed with; default SECRETS_KEY, else the key file in DATA_DIR. */
  secretsKey?: Buffer;
}

const API_DESCRIPTION = `Tapline's sync server: payments, FX, bills, payment links, Pay Identity, tap wearables, POS
sessions, gift cards, the store, subscriptions, payroll, offline QR and the checkout drop-in
({base_url}/sdk/service.js, with publishable keys pk_test_/pk_live_ that only the checkout session routes
accept), on a double-entry ledger.

Money: JSON amounts are decimal numbers in major units (12.50); the ledger keeps integer minor units
per ISO 4217. Errors: {error, code, details?}. Lists: {data, total, limit, offset}.
Every route refuses NUL characters and unpaired UTF-16 surrogates in any text (400 invalid_text), control
characters in path parameters and numbers beyond +-(2^53-1) in queries and paths (400 invalid_parameter),
and JSON bodies nested deeper than ${JSON_DEPTH_MAX} levels (400 body_too_deep); a missing body is {} where no field is
required. While the database cannot be reached, requests answer 503 database_unavailable with Retry-After.
Rate limits per 60-second window (below), with X-RateLimit-Limit, X-RateLimit-Remaining and
X-RateLimit-Reset (seconds until the window resets) on every /api answer, and Retry-After on 429.`;

/** Builds the application without listening: tests call app.inject(), main.ts listens. */
export async function buildApp(options: BuildAppOptions): Promise<{ app: FastifyInstance; context: AppContext; io: Server }> {
  const { config, db } = options;
  const now = options.now ?? (() => new Date());
  const secretsKey = options.secretsKey ?? config.secretsKey ?? keyFromFile(join(config.dataDir, 'secrets.key'));
  const secrets = createSecretBox(secretsKey);
  await sealStoredWebhookSecrets(db, secrets);
  const events = new EventDispatcher({
    db,
    secrets,
    now,
    retryDelaysMs: scaledRetryDelays(config.webhookRetryScale),
    timeoutMs: config.webhookTimeoutMs,
    pollIntervalMs: config.webhookPollMs,
    onError: (error) => app.log.error({ err: error }, 'event dispatcher run failed'),
  });
  // Provider adapters from their environment variables; their callbacks log through the app (below).
  let railLog: (message: string, detail?: Record<string, unknown>) => void = () => undefined;
  const rails = createRails({
    env: options.providerEnv ?? config.providerEnv,
    modules: options.railModules ?? RAIL_MODULES,
    routes: config.railRoutes,
    publicBaseUrl: config.publicBaseUrl,
    secretsKey,
    timeoutMs: config.railTimeoutMs,
    now,
    log: (message, detail) => railLog(message, detail),
  });
  const money = createMoneyServices({
    config,
    db,
    now,
    // Cash pickup is paid by Tapline's own agent network, after any provider RAIL_ROUTES names for it (modules/cash-pickup).
    payoutProviders: options.payoutProviders ?? [...rails.payoutProviders, agentNetworkProvider({ db, now, hours: config.cashPickupHours })],
    billerProviders: options.billerProviders ?? rails.billerProviders,
    fxProvider: options.fxProvider,
    onError: (scope, error) => app.log.error({ err: error }, `${scope} failed`),
  });
  // The daily reconciliation of live payouts and collections with every configured provider: it
  // reports, and moves no money but one thing: a bank transfer into a wallet's virtual account that
  // the provider's list shows and whose webhook never came is credited through the webhook's path.
  const reconciliation = reconciliationService({
    db,
    now,
    sources: [...rails.adapters.values()],
    // Live bills are reconciled through their payer (Flutterwave: GET /v3/bills/{reference}).
    billers: money.billerProviders,
    afterHours: config.reconcileAfterHours,
    log: (message, detail) => app.log.warn(detail, message),
    // context is made below; the reconciliation runs only once the server is up.
    bankTransfers: { known: (provider, references) => knownBankTransfers(db, provider, references), credit: (provider, arrived) => context.bankTransfers.credit(provider, arrived) },
  });
  const context = { db, config, now, events, secrets, sync: new SyncNotifier(), rails, reconciliation, ...money } as AppContext;
  context.collections = collectionService(context, (message, detail) => railLog(message, detail));
  context.bankTransfers = { credit: (provider, arrived) => creditBankTransfer(context, provider, arrived) };
  // Automatic merchant payouts (docs/payouts.md): tests call context.payoutJobs.runOnce().
  context.payoutJobs = payoutJobs(context, (message, detail) => app.log.warn(detail, message));
  const app = Fastify({
    // Query values are redacted from every request line: they may carry a secret (README, Logs).
    logger: options.logger === false ? false : { level: config.logLevel, serializers: { req: loggedRequest }, ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: config.bodyLimitBytes,
    // Route registration compiles a few hundred schemas; on a slow or busy machine (a shop's
    // small server, CI next to a browser) that outgrows Fastify's 10 s default and the server
    // would refuse to start.
    pluginTimeout: 120_000,
    trustProxy: config.trustProxy,
    ajv: { customOptions: { allErrors: false } },
    schemaController: { compilersFactory: { buildValidator } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  railLog = (message, detail) => app.log.warn(detail ?? {}, message);

  // Before the routes: the document is derived from each route as it is added (src/openapi).
  await registerOpenApi(app, config, API_DESCRIPTION);

  // The API speaks JSON only: other bodies get a clear 415 instead of a confusing schema error.
  app.removeContentTypeParser(['text/plain']);
  registerJsonBody(app);
  registerErrorHandling(app);
  const isAdminToken = adminTokenChecker(options.adminTokenHash);
  // First, so that its request histogram sees every route.
  registerMetrics(app, db, isAdminToken, now);
  registerAuth(app, db, isAdminToken, now, { resolveSession: sessionResolver(context), publicBaseUrl: config.publicBaseUrl });
  await registerRateLimits(app, db, { store: config.rateLimitStore, scale: options.rateLimitScale ?? config.rateLimitScale, windowMs: config.rateLimitWindowSeconds * 1000 });
  registerInputGuard(app);
  registerIdempotency(app, db, (request) => idempotencyScope(request.credential.state === 'valid' ? request.credential.principal : undefined));
  registerCors(app);
  registerDrain(app);

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request) => {
    throw notFound('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
  });

  for (const routes of [healthRoutes, readinessRoutes, adminRoutes, merchantRoutes, terminalRoutes, walletRoutes, agentRoutes, webhookRoutes, paymentRoutes, fxRoutes, billRoutes, linkRoutes, identityRoutes, wearableRoutes, holderWearableRoutes, walletPayRoutes, posRoutes, collectionRoutes, walletMoneyRoutes, cashPickupRoutes, payoutRoutes, productRoutes, saleRoutes, tillStaffRoutes, giftCardRoutes, offlineRoutes, subscriptionRoutes, payrollRoutes, checkoutRoutes, railCallbackRoutes, reconciliationRoutes, merchantUserRoutes, merchantKeyRoutes, salesRoutes, webRoutes, dashboardRoutes]) {
    await routes(app, context);
  }
  await storeRoutes(app, context, options.mailTransport);
  // Taps read the default no-PIN limits of each currency from the database: written before the
  // first request, then after every FX refresh. Until they exist every tap needs the PIN.
  await refreshNoPinLimitDefaults(context).catch((error: unknown) => app.log.error({ err: error }, 'no-PIN limit defaults could not be written'));
  if (options.backgroundJobs !== false) startNoPinLimitDefaultsRefresh(app, context);
  // POS sessions past their 90 seconds are expired by this sweeper (and by every read that meets one).
  if (options.backgroundJobs !== false) startPosSessionSweeper(app, context, config.posSweepIntervalMs);
  // Scheduled gift-card delivery and expiry: the card rows are the jobs (tests call giftCardJobs(context).runOnce()).
  if (options.backgroundJobs !== false) startGiftCardJobs(app, context);
  // The store's e-mail outbox (stock alerts): tests call storeMailOutbox(context).runOnce().
  if (options.backgroundJobs !== false) startStoreJobs(app, context);
  // Expired offline QR vouchers give their reserved money back after the settlement grace.
  if (options.backgroundJobs !== false) startOfflineJobs(app, context);
  // Mobile-money collections at the till: sandbox answers, provider polls, expiries (tests call context.collections.runOnce()).
  if (options.backgroundJobs !== false) startCollectionJobs(app, context);
  // Terminals replicate over socket.io on the same HTTP server; the voucher signing key exists
  // before the first terminal connects, so every sync hello carries it.
  await currentSigner(db, secrets, now());
  const io = attachSyncEndpoint(app, context);
  app.metrics.countTerminalsWith(() => io.of(SYNC_NAMESPACE).sockets.size);
  // Subscription renewals: the subscription rows are the jobs (tests call subscriptionJobs(context).runOnce()).
  if (options.backgroundJobs !== false) startSubscriptionJobs(app, context);
  // Background workers run while the app is up; onClose waits for their work in flight.
  if (options.backgroundJobs !== false) {
    app.addHook('onReady', async () => {
      context.events.start();
      context.payments.start();
      context.fx.start();
      context.reconciliation.start();
      context.payoutJobs.start();
    });
  }
  app.addHook('onClose', async () => {
    await Promise.all([context.events.stop(), context.payments.stop(), context.fx.stop(), context.reconciliation.stop(), context.payoutJobs.stop()]);
  });
  return { app, context, io };
}

interface MoneyServiceOptions {
  config: Config;
  db: Database;
  now: () => Date;
  payoutProviders?: readonly PayoutProvider[] | undefined;
  billerProviders?: readonly BillerProvider[] | undefined;
  /** Replaces the configured FX provider (tests). */
  fxProvider?: FxRateProvider | undefined;
  onError: (scope: string, error: unknown) => void;
}

/**
 * The FX rate service, the payment scheduler and the provider adapters, built from the configuration:
 * the context fields the fx, payments and bills modules declare (their index.ts).
 */
function createMoneyServices(options: MoneyServiceOptions): Pick<AppContext, 'fx' | 'payments' | 'payoutProviders' | 'billerProviders'> {
  const { config, db, now } = options;
  const embedded = new EmbeddedRateProvider();
  const provider = options.fxProvider ?? (config.fxSourceUrl ? new UrlRateProvider(config.fxSourceUrl) : embedded);
  const fx = new FxRateService({
    db,
    now,
    provider,
    // The pinned table only when a live source has never answered and none of its tables was saved.
    ...(provider !== embedded ? { fallback: embedded } : {}),
    refreshMs: config.fxRefreshMs,
    spreadPercent: config.fxSpreadPercent,
    onError: (error) => options.onError('fx refresh', error),
  });
  const payouts = options.payoutProviders ?? [];
  const payments = paymentScheduler({
    db,
    now,
    stepMs: config.sandboxStepMs,
    pollIntervalMs: config.schedulerPollMs,
    payoutProviders: payouts,
    providerLeaseMs: providerLeaseFor(config.railTimeoutMs),
    providerPollMs: config.railPollMs,
    // Who sends a live payout (Flutterwave to Kenya must say): the merchant's profile (modules/payouts/sender.ts).
    senderOf: payoutSenderOf(db),
    onError: (error) => options.onError('payment scheduler', error),
  });
  return { fx, payments, payoutProviders: payouts, billerProviders: options.billerProviders ?? [] };
}
