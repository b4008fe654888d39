import { resolve } from 'node:path';
import { parseSecretsKey } from './auth/secret-box.ts';
import { OFFLINE_MAX_AGE_HOURS_MAX } from '@tapline/shared/sync-protocol';
import { WALLET_TIERS, WALLET_TIER_DEFAULT, WALLET_TIER_DEFAULTS, type WalletTier, type WalletTierLimitsUsd, walletTierVariable } from '@tapline/shared/wallet-tiers';
import { DEFAULT_ROUTES, RouteConfigError, type RouteTable, parseRoutes } from './rails/routing.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  /** The payment providers' own variables (PAYSTACK_*, FLUTTERWAVE_*, MPESA_*, MOMO_*): each rail adapter reads its own. */
  providerEnv: Readonly<Record<string, string | undefined>>;
  /** RAIL_ROUTES applied to the default route table (rails/routing.ts). */
  railRoutes: RouteTable;
  /** RAIL_TIMEOUT_MS: one request to a provider; past it the outcome is unknown and asked about before any resend. */
  railTimeoutMs: number;
  /** RAIL_POLL_MS: how often a live payout in processing is asked about at its provider. */
  railPollMs: number;
  /** RAIL_ATTENTION_HOURS: a live payout still processing after this long is flagged for attention. */
  railAttentionHours: number;
  /** RECONCILE_AFTER_HOURS: how long after a UTC day ends its live payouts are reconciled with each provider (late callbacks and settlements first). */
  reconcileAfterHours: number;
  port: number;
  host: string;
  publicBaseUrl: string;
  /** SECRETS_KEY: seals stored secrets (webhook signing secrets); undefined: the key file `dataDir`/secrets.key. */
  secretsKey: Buffer | undefined;
  /** PostgreSQL connection string; undefined: embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The admin token from the environment (without the `admin.` prefix), if set. */
  adminToken: string | undefined;
  logLevel: LogLevel;
  /** Where rate-limit counters live: this process only, or the shared database. */
  rateLimitStore: 'memory' | 'postgres';
  /** The rate-limit window (the spec's is 60 seconds); tests and load tests shorten it. */
  rateLimitWindowSeconds: number;
  /** Multiplies every rate limit (1: the spec's table); tests reach a limit with few requests. */
  rateLimitScale: number;
  /** Sandbox float credited to a new merchant's test wallet, in major units of its currency. */
  sandboxFloat: number;
  /** Wallet and agent session lifetime. */
  sessionTtlSeconds: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /** How often the POS sweeper expires pending sessions past their 90 seconds (real time); 0 disables it. */
  posSweepIntervalMs: number;
  /** Sandbox payments: time between automatic steps (pending -> processing -> completed). */
  sandboxStepMs: number;
  /** How long a till's mobile-money collection waits for the customer (COLLECTION_TIMEOUT_SECONDS). */
  collectionTimeoutSeconds: number;
  /** How often a live collection is asked at its provider, and the collection job runs (COLLECTION_POLL_MS; 0: no timer). */
  collectionPollMs: number;
  /** How often the payment scheduler looks for due steps (real time). */
  schedulerPollMs: number;
  /** Multiplies the webhook retry schedule (1 min, 5 min, 30 min, 2 h, 24 h); tests use tiny values. */
  webhookRetryScale: number;
  /** A receiver must answer 2xx within this many milliseconds (spec: 10 seconds). */
  webhookTimeoutMs: number;
  /** How often the event dispatcher looks for due deliveries (real time). */
  webhookPollMs: number;
  /** Live FX source in the @fawazahmed0/currency-api JSON format; unset: the pinned embedded table. */
  fxSourceUrl: string | undefined;
  /** How often the FX rate table is refreshed (spec: every 5 minutes). */
  fxRefreshMs: number;
  /** The spread taken from the mid-market rate on merchant quotes and payments, in percent. */
  fxSpreadPercent: string;
  /** Fee per rail in percent of the amount (and `bills` for bill payments), rounded up to the minor unit. */
  feePercentByRail: Record<string, string>;
  /** How often the gift-card worker delivers due scheduled cards and expires cards (real time); 0 disables it. */
  giftCardJobIntervalMs: number;
  /** Unknown codes one IP may ask GET /api/gift-cards/verify about per window before it gets 429. */
  giftCardVerifyMissesMax: number;
  /** The window of that count, in seconds. */
  giftCardVerifyMissWindowSeconds: number;
  /** SMTP server of outgoing e-mail (store stock alerts), e.g. smtps://user:pass@smtp.example.com:465; unset: mail is disabled (mails wait in the outbox). */
  smtpUrl: string | undefined;
  /** The From of outgoing e-mail. */
  mailFrom: string;
  /** How often the store's mail outbox is sent (real time); 0 disables the worker. */
  storeMailIntervalMs: number;
  /** Default offline limits of a terminal, in US dollars converted into the merchant's currency (a merchant may set its own per terminal). */
  offlinePerPaymentUsd: number;
  offlineTotalUsd: number;
  /** A terminal with an offline payment queued longer than this must sync before taking more. */
  offlineMaxAgeHours: number;
  /** An expired offline QR voucher keeps its money reserved this long, for payments taken before expiry by terminals that sync late. */
  offlineQrSettlementGraceHours: number;
  /** How often reserved money of expired vouchers is released (real time); 0 disables the worker. */
  offlineQrJobIntervalMs: number;
  /** How often the subscription renewal job charges due subscriptions (real time); 0 disables it. */
  subscriptionJobIntervalMs: number;
  /** Default no-PIN limits of a tag, per tap and per UTC day, in US dollars converted into each currency (a holder may lower a tag's own). */
  noPinPerTapUsd: number;
  noPinPerDayUsd: number;
  /** Wallet money (docs/wallet-money.md): the top-up fee, percent of the amount, paid by the phone on top (WALLET_TOP_UP_FEE_PCT, default 0). */
  walletTopUpFeePercent: string;
  /** Agents' commissions (docs/agents.md), percent of each cash-in / cash-out, paid by the platform into the agent's float (AGENT_CASH_IN_COMMISSION_PCT, AGENT_CASH_OUT_COMMISSION_PCT, default 0). */
  agentCashInCommissionPercent: string;
  agentCashOutCommissionPercent: string;
  /** The withdrawal fee, percent of the amount, debited from the wallet on top (WALLET_WITHDRAWAL_FEE_PCT, default 0). */
  walletWithdrawalFeePercent: string;
  /** Withdrawal limits in US dollars, converted into the wallet's currency: one withdrawal, and all of a wallet's in 24 hours (0: no withdrawals). */
  walletWithdrawalMaxUsd: number;
  walletWithdrawalDailyUsd: number;
  /** Verification tiers of customer wallets (docs/wallet-tiers.md): each tier's limits in US dollars (null: none), and the tier a wallet has until an administrator changes it. */
  walletTiers: Record<WalletTier, WalletTierLimitsUsd>;
  walletTierDefault: WalletTier;
  /** Merchant payouts (docs/payouts.md): offline-captured sales younger than this are held back from payouts (PAYOUT_HOLD_HOURS, default 72). */
  payoutHoldHours: number;
  /** The UTC hour from which the day's automatic payouts are made (PAYOUT_SCHEDULE_HOUR_UTC, default 6). */
  payoutScheduleHourUtc: number;
  /** How often the payout job looks for merchants due (PAYOUT_JOB_INTERVAL_MS, default 60000; 0: no timer). */
  payoutJobIntervalMs: number;
  /** A second listen address serving only GET /metrics without a credential; undefined port: none (GET /metrics on the API port needs the admin token). */
  metricsHost: string;
  metricsPort: number | undefined;
  /** The built merchant dashboard served at /dashboard (DASHBOARD_DIR; default dashboard/dist, which `npm start` builds). */
  dashboardDir: string;
  /** The built server pages and checkout drop-in served at /web and /sdk/service.js (WEB_DIR; default web/dist, which `npm start` builds). */
  webDir: string;
}

/** Default fee schedule, percent of the amount; PAYMENT_FEES overrides entries (JSON). */
export const DEFAULT_FEE_PERCENT: Readonly<Record<string, string>> = {
  mobile_money: '1.5',
  bank_transfer: '1',
  wallet: '0.5',
  payment_link: '1.5',
  qr: '1',
  offline_qr: '1',
  card: '2.9',
  cash_pickup: '2.5',
  bills: '0',
};

const PERCENT = /^(?:100(?:\.0{1,4})?|\d{1,2}(?:\.\d{1,4})?)$/;

function percent(env: NodeJS.ProcessEnv, name: string, fallback: string, max: number, problems: string[]): string {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!PERCENT.test(raw) || Number(raw) > max) {
    problems.push(`${name} must be a percentage from 0 to ${max} with at most 4 decimals, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  return raw;
}

function feeSchedule(env: NodeJS.ProcessEnv, problems: string[]): Record<string, string> {
  const schedule: Record<string, string> = { ...DEFAULT_FEE_PERCENT };
  const raw = env.PAYMENT_FEES?.trim();
  if (!raw) return schedule;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('PAYMENT_FEES must be JSON such as {"mobile_money": 1.5, "bank_transfer": "0.8"}');
    return schedule;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('PAYMENT_FEES must be a JSON object of rail -> percent');
    return schedule;
  }
  for (const [rail, value] of Object.entries(parsed)) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    if (!(rail in DEFAULT_FEE_PERCENT)) problems.push(`PAYMENT_FEES: unknown rail ${JSON.stringify(rail)} (known: ${Object.keys(DEFAULT_FEE_PERCENT).join(', ')})`);
    else if (!PERCENT.test(text) || Number(text) > 50) problems.push(`PAYMENT_FEES.${rail} must be a percentage from 0 to 50 with at most 4 decimals`);
    else schedule[rail] = text;
  }
  return schedule;
}

function decimalNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    problems.push(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  return value;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  return value;
}

/** Each tier's limits (shared/src/wallet-tiers.ts), each overridable: whole US dollars, or "none" for no limit. */
function walletTiers(env: NodeJS.ProcessEnv, problems: string[]): Record<WalletTier, WalletTierLimitsUsd> {
  const tiers = {} as Record<WalletTier, WalletTierLimitsUsd>;
  for (const tier of WALLET_TIERS) {
    const limits = { ...WALLET_TIER_DEFAULTS[tier] };
    for (const limit of ['maxBalanceUsd', 'dailyInUsd', 'dailyOutUsd'] as const) {
      const name = walletTierVariable(tier, limit);
      const raw = env[name]?.trim();
      if (raw === undefined || raw === '') continue;
      if (raw.toLowerCase() === 'none') limits[limit] = null;
      else limits[limit] = integer(env, name, WALLET_TIER_DEFAULTS[tier][limit] ?? 0, 0, 1_000_000_000, problems);
    }
    tiers[tier] = limits;
  }
  return tiers;
}

/** Reads and validates the environment; every bad value is reported at once, by name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = integer(env, 'PORT', 3000, 0, 65_535, problems);
  const host = env.HOST?.trim() || '127.0.0.1';

  let publicBaseUrl = env.PUBLIC_BASE_URL?.trim() || `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`;
  try {
    const url = new URL(publicBaseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`PUBLIC_BASE_URL must be an http(s) URL, got ${JSON.stringify(publicBaseUrl)}`);
    publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute URL such as https://pay.example.com, got ${JSON.stringify(publicBaseUrl)}`);
  }

  let databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl) {
    try {
      const url = new URL(databaseUrl);
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error('protocol');
    } catch {
      problems.push('DATABASE_URL must be a postgres:// or postgresql:// connection string (unset it to use the embedded database)');
      databaseUrl = undefined;
    }
  }

  let adminToken = env.ADMIN_TOKEN?.trim() || undefined;
  if (adminToken?.startsWith('admin.')) adminToken = adminToken.slice('admin.'.length);
  if (adminToken !== undefined && !/^[A-Za-z0-9_\-.~]{24,256}$/.test(adminToken)) {
    problems.push('ADMIN_TOKEN must be 24 to 256 URL-safe characters (letters, digits, - _ . ~)');
  }

  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`);

  const rateLimitStore = (env.RATE_LIMIT_STORE?.trim() || 'memory') as Config['rateLimitStore'];
  if (rateLimitStore !== 'memory' && rateLimitStore !== 'postgres') problems.push('RATE_LIMIT_STORE must be memory or postgres');

  let fxSourceUrl = env.FX_SOURCE_URL?.trim() || undefined;
  if (fxSourceUrl) {
    try {
      const url = new URL(fxSourceUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      problems.push(`FX_SOURCE_URL must be an http(s) URL of a USD rate table (currency-api format), got ${JSON.stringify(fxSourceUrl)}`);
      fxSourceUrl = undefined;
    }
  }

  let smtpUrl = env.SMTP_URL?.trim() || undefined;
  if (smtpUrl) {
    try {
      const url = new URL(smtpUrl);
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('protocol');
    } catch {
      problems.push('SMTP_URL must be an smtp:// or smtps:// URL such as smtps://user:pass@smtp.example.com:465 (unset it to disable mail)');
      smtpUrl = undefined;
    }
  }
  const secretsKeyText = env.SECRETS_KEY?.trim() || undefined;
  const secretsKey = secretsKeyText === undefined ? undefined : parseSecretsKey(secretsKeyText);
  if (secretsKeyText !== undefined && !secretsKey) problems.push('SECRETS_KEY must be 32 bytes as 64 hex characters or base64 (for example: openssl rand -hex 32)');

  const mailFrom = env.MAIL_FROM?.trim() || 'Tapline Store <store@tapline.invalid>';
  if (!/^[^\r\n]{3,200}$/.test(mailFrom) || !mailFrom.includes('@')) problems.push('MAIL_FROM must be an e-mail address, optionally with a name: Tapline Store <store@example.com>');

  let railRoutes: RouteTable = DEFAULT_ROUTES;
  try {
    railRoutes = parseRoutes(env.RAIL_ROUTES);
  } catch (error) {
    if (!(error instanceof RouteConfigError)) throw error;
    problems.push(error.message);
  }
  const providerEnv = Object.fromEntries(Object.entries(env).filter(([name]) => /^(PAYSTACK|FLUTTERWAVE|MPESA|MOMO)_/.test(name)));

  const config: Config = {
    providerEnv,
    railRoutes,
    railTimeoutMs: integer(env, 'RAIL_TIMEOUT_MS', 20_000, 100, 120_000, problems),
    railPollMs: integer(env, 'RAIL_POLL_MS', 30_000, 500, 24 * 3600_000, problems),
    railAttentionHours: decimalNumber(env, 'RAIL_ATTENTION_HOURS', 24, 0.001, 24 * 30, problems),
    reconcileAfterHours: decimalNumber(env, 'RECONCILE_AFTER_HOURS', 2, 0, 72, problems),
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    secretsKey,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    dashboardDir: resolve(env.DASHBOARD_DIR?.trim() || new URL('../../dashboard/dist', import.meta.url).pathname),
    webDir: resolve(env.WEB_DIR?.trim() || new URL('../../web/dist', import.meta.url).pathname),
    adminToken,
    logLevel,
    rateLimitStore,
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600, problems),
    rateLimitScale: decimalNumber(env, 'RATE_LIMIT_SCALE', 1, 0.001, 1000, problems),
    sandboxFloat: integer(env, 'SANDBOX_FLOAT', 1_000_000, 0, 1_000_000_000, problems),
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 12 * 3600, 60, 30 * 24 * 3600, problems),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024, problems),
    posSweepIntervalMs: integer(env, 'POS_SWEEP_INTERVAL_MS', 5_000, 0, 3_600_000, problems),
    sandboxStepMs: integer(env, 'SANDBOX_STEP_MS', 1500, 0, 3_600_000, problems),
    collectionTimeoutSeconds: integer(env, 'COLLECTION_TIMEOUT_SECONDS', 120, 10, 3600, problems),
    collectionPollMs: integer(env, 'COLLECTION_POLL_MS', 5000, 0, 3_600_000, problems),
    schedulerPollMs: integer(env, 'SCHEDULER_POLL_MS', 250, 10, 60_000, problems),
    webhookRetryScale: decimalNumber(env, 'WEBHOOK_RETRY_SCALE', 1, 0, 1000, problems),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000, problems),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000, problems),
    fxSourceUrl,
    fxRefreshMs: integer(env, 'FX_REFRESH_MS', 5 * 60_000, 1000, 24 * 3600_000, problems),
    fxSpreadPercent: percent(env, 'FX_SPREAD_PCT', '1', 20, problems),
    feePercentByRail: feeSchedule(env, problems),
    giftCardJobIntervalMs: integer(env, 'GIFT_CARD_JOB_INTERVAL_MS', 10_000, 0, 3_600_000, problems),
    giftCardVerifyMissesMax: integer(env, 'GIFT_CARD_VERIFY_MISSES_MAX', 300, 1, 1_000_000, problems),
    giftCardVerifyMissWindowSeconds: integer(env, 'GIFT_CARD_VERIFY_MISS_WINDOW_SECONDS', 3600, 1, 86_400, problems),
    smtpUrl,
    mailFrom,
    storeMailIntervalMs: integer(env, 'STORE_MAIL_INTERVAL_MS', 10_000, 0, 3_600_000, problems),
    offlinePerPaymentUsd: integer(env, 'OFFLINE_PER_PAYMENT_USD', 20, 0, 1_000_000, problems),
    offlineTotalUsd: integer(env, 'OFFLINE_TOTAL_USD', 200, 0, 10_000_000, problems),
    offlineMaxAgeHours: integer(env, 'OFFLINE_MAX_AGE_HOURS', 72, 1, OFFLINE_MAX_AGE_HOURS_MAX, problems),
    offlineQrSettlementGraceHours: integer(env, 'OFFLINE_QR_SETTLEMENT_GRACE_HOURS', 72, 0, 24 * 30, problems),
    offlineQrJobIntervalMs: integer(env, 'OFFLINE_QR_JOB_INTERVAL_MS', 60_000, 0, 3_600_000, problems),
    subscriptionJobIntervalMs: integer(env, 'SUBSCRIPTION_JOB_INTERVAL_MS', 10_000, 0, 3_600_000, problems),
    noPinPerTapUsd: integer(env, 'NO_PIN_PER_TAP_USD', 20, 0, 1_000_000, problems),
    noPinPerDayUsd: integer(env, 'NO_PIN_PER_DAY_USD', 50, 0, 10_000_000, problems),
    walletTopUpFeePercent: percent(env, 'WALLET_TOP_UP_FEE_PCT', '0', 20, problems),
    agentCashInCommissionPercent: percent(env, 'AGENT_CASH_IN_COMMISSION_PCT', '0', 10, problems),
    agentCashOutCommissionPercent: percent(env, 'AGENT_CASH_OUT_COMMISSION_PCT', '0', 10, problems),
    walletWithdrawalFeePercent: percent(env, 'WALLET_WITHDRAWAL_FEE_PCT', '0', 20, problems),
    walletWithdrawalMaxUsd: integer(env, 'WALLET_WITHDRAWAL_MAX_USD', 1000, 0, 10_000_000, problems),
    walletWithdrawalDailyUsd: integer(env, 'WALLET_WITHDRAWAL_DAILY_USD', 2000, 0, 100_000_000, problems),
    walletTiers: walletTiers(env, problems),
    walletTierDefault: integer(env, 'WALLET_TIER_DEFAULT', WALLET_TIER_DEFAULT, 1, WALLET_TIERS.length, problems) as WalletTier,
    payoutHoldHours: integer(env, 'PAYOUT_HOLD_HOURS', 72, 0, 24 * 90, problems),
    payoutScheduleHourUtc: integer(env, 'PAYOUT_SCHEDULE_HOUR_UTC', 6, 0, 23, problems),
    payoutJobIntervalMs: integer(env, 'PAYOUT_JOB_INTERVAL_MS', 60_000, 0, 3_600_000, problems),
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    metricsPort: env.METRICS_PORT?.trim() ? integer(env, 'METRICS_PORT', 0, 0, 65_535, problems) : undefined,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
