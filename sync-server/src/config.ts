import { NO_PIN_PER_DAY_USD_DEFAULT, NO_PIN_PER_TAP_USD_DEFAULT, OFFLINE_PAYMENT_AGE_HOURS_DEFAULT, OFFLINE_PAYMENT_AGE_HOURS_MAX, OFFLINE_PER_PAYMENT_USD_DEFAULT, OFFLINE_TOTAL_USD_DEFAULT, RATE_LIMIT_WINDOW_SECONDS, REQUEST_BODY_BYTES_DEFAULT } from '@tapline/shared/limits';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSecretsKey } from './auth/secret-box.ts';
import { WALLET_TIERS, WALLET_TIER_DEFAULT, WALLET_TIER_DEFAULTS, type WalletTier, type WalletTierLimitsUsd, walletTierVariable } from '@tapline/shared/wallet-tiers';
import { DEFAULT_ROUTES, RouteConfigError, type RouteTable, parseRoutes } from './rails/routing.ts';

// The server's configuration: every environment variable it reads is declared once in SETTINGS
// below (its type, default, allowed values and a one-line description). loadConfig() checks all of
// them at start and reports every bad value at once; docs/configuration.md is generated from the
// table (`npm run config:docs`, a test fails while it differs) and the README's configuration
// tables are checked against it. A secret may come from a file instead: NAME_FILE=/path (systemd
// credentials, Docker secrets), its trailing newline dropped. A secret's value never appears in an
// error line.

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
  /** RECONCILE_AFTER_HOURS: how long after a UTC day ends its live payouts and collections are reconciled with each provider (late callbacks and settlements first). */
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
  /** A bank transfer into a wallet's virtual account: the fee, percent of what arrived, kept from it (WALLET_BANK_TRANSFER_FEE_PCT, default 0). */
  walletBankTransferFeePercent: string;
  /** The provider a wallet's virtual account is opened with where several make accounts in its currency (WALLET_VIRTUAL_ACCOUNT_PROVIDER; unset: the first configured, paystack then flutterwave). */
  walletVirtualAccountProvider: string | undefined;
  /** Agents' commissions (docs/agents.md), percent of each cash-in / cash-out, paid by the platform into the agent's float (AGENT_CASH_IN_COMMISSION_PCT, AGENT_CASH_OUT_COMMISSION_PCT, default 0). */
  agentCashInCommissionPercent: string;
  agentCashOutCommissionPercent: string;
  /** An agent's float through the rails (docs/agents.md, "Funding and settling the float"): the top-up fee, the settlement fee (percent), and the settlement limits in US dollars. */
  agentFloatTopUpFeePercent: string;
  agentSettlementFeePercent: string;
  agentSettlementMaxUsd: number;
  agentSettlementDailyUsd: number;
  /** Cash pickup on the agent network (docs/payouts.md): hours a pickup waits for its recipient before the money goes back (CASH_PICKUP_HOURS, default 72). */
  cashPickupHours: number;
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
  /** TRUST_PROXY=1: the client address and protocol come from the proxy's X-Forwarded-* headers. */
  trustProxy: boolean;
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

/** What a value may be: `check` answers the parsed value, or undefined when the text is not allowed. */
interface ValueType {
  /** The type column of docs/configuration.md. */
  type: string;
  /** What is allowed, as the error line and the reference say it ("an integer from 0 to 65535"). */
  allowed: string;
  check(text: string): unknown;
}

const integer = (min: number, max: number): ValueType => ({
  type: 'integer',
  allowed: `an integer from ${min} to ${max}`,
  check: (text) => {
    const value = Number(text);
    return Number.isInteger(value) && value >= min && value <= max ? value : undefined;
  },
});

const decimal = (min: number, max: number): ValueType => ({
  type: 'number',
  allowed: `a number from ${min} to ${max}`,
  check: (text) => {
    const value = Number(text);
    return Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  },
});

/** A percentage kept as its decimal text (money is computed from it exactly, never as a float). */
const percent = (max: number): ValueType => ({
  type: 'percent',
  allowed: `a percentage from 0 to ${max} with at most 4 decimals`,
  check: (text) => (PERCENT.test(text) && Number(text) <= max ? text : undefined),
});

const oneOf = (values: readonly string[]): ValueType => ({
  type: 'one of',
  allowed: `one of ${values.join(', ')}`,
  check: (text) => (values.includes(text) ? text : undefined),
});

const url = (protocols: readonly string[], allowed: string): ValueType => ({
  type: 'URL',
  allowed,
  check: (text) => {
    try {
      return protocols.includes(new URL(text).protocol) ? text : undefined;
    } catch {
      return undefined;
    }
  },
});

const text = (allowed = 'any text'): ValueType => ({ type: 'text', allowed, check: (value) => value });
const HTTP_URL = url(['http:', 'https:'], 'an http(s) URL');

export type SettingGroup = 'server' | 'providers';

export interface Setting {
  name: string;
  group: SettingGroup;
  value: ValueType;
  /** The default as the variable would be written; undefined: unset (see defaultText). */
  default?: string;
  /** How the reference shows a default that is computed or absent. */
  defaultText?: string;
  /** A secret: never shown in an error line or a log, and may be read from NAME_FILE. */
  secret?: true;
  /** Kept exactly as set, spaces included (a password); other values are trimmed. */
  untrimmed?: true;
  /** One line for docs/configuration.md. */
  description: string;
}

const HOURS_30_DAYS = 24 * 30;

/** A tier limit: whole US dollars, or "none" (null: no limit). */
const wholeDollars = integer(0, 1_000_000_000);
const usdLimit: ValueType = {
  type: 'integer or none',
  allowed: `${wholeDollars.allowed}, or none`,
  check: (text) => (text.toLowerCase() === 'none' ? null : wholeDollars.check(text)),
};
const WALLET_TIER_LIMITS = ['maxBalanceUsd', 'dailyInUsd', 'dailyOutUsd'] as const;
const WALLET_TIER_LIMIT_MEANING: Record<(typeof WALLET_TIER_LIMITS)[number], string> = {
  maxBalanceUsd: 'the most a wallet may hold',
  dailyInUsd: 'the most that may come into a wallet in any 24 hours',
  dailyOutUsd: 'the most that may leave a wallet in any 24 hours',
};

/** Each tier's limits from its settings (shared/src/wallet-tiers.ts has the defaults). */
function walletTiers(get: <T>(name: string) => T): Record<WalletTier, WalletTierLimitsUsd> {
  const tiers = {} as Record<WalletTier, WalletTierLimitsUsd>;
  for (const tier of WALLET_TIERS) {
    const limit = (name: keyof WalletTierLimitsUsd) => get<number | null>(walletTierVariable(tier, name));
    tiers[tier] = { maxBalanceUsd: limit('maxBalanceUsd'), dailyInUsd: limit('dailyInUsd'), dailyOutUsd: limit('dailyOutUsd') };
  }
  return tiers;
}

/** Every environment variable the server reads, once. */
export const SETTINGS: readonly Setting[] = [
  // The listener and the addresses.
  { name: 'PORT', group: 'server', value: integer(0, 65_535), default: '3000', description: 'HTTP port of the sync server (0: any free port)' },
  { name: 'HOST', group: 'server', value: text('an interface address or host name'), default: '127.0.0.1', description: 'interface to listen on (0.0.0.0 to serve terminals and phones on the LAN)' },
  { name: 'PUBLIC_BASE_URL', group: 'server', value: url(['http:', 'https:'], 'an absolute http(s) URL such as https://pay.example.com'), defaultText: '`http://<host>:<port>`', description: 'base of the URLs the server hands out (tap URLs, payment pages, provider callbacks)' },
  { name: 'TRUST_PROXY', group: 'server', value: oneOf(['0', '1']), default: '0', description: '1 behind a reverse proxy: client address and protocol from X-Forwarded-For / X-Forwarded-Proto' },
  // Storage and secrets.
  { name: 'DATABASE_URL', group: 'server', value: url(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// connection string (unset it to use the embedded database)'), defaultText: 'unset: embedded PGlite', secret: true, description: 'PostgreSQL connection string; unset, the embedded database in DATA_DIR' },
  { name: 'DATA_DIR', group: 'server', value: text('a folder path'), default: './data', description: 'folder of the embedded database (one process at a time), secrets.key and the terminal\'s previews' },
  { name: 'SECRETS_KEY', group: 'server', value: { type: 'key', allowed: '32 bytes as 64 hex characters or base64 (for example: openssl rand -hex 32)', check: (value) => parseSecretsKey(value) }, defaultText: 'unset: DATA_DIR/secrets.key', secret: true, description: 'seals stored secrets (webhook signing secrets); the same on every instance of one database' },
  {
    name: 'ADMIN_TOKEN', group: 'server', secret: true, defaultText: 'generated at first start', description: 'the admin token, sent as `Bearer admin.<token>` (an `admin.` prefix here is dropped)',
    value: { type: 'token', allowed: '24 to 256 URL-safe characters (letters, digits, - _ . ~)', check: (value) => {
      const token = value.startsWith('admin.') ? value.slice('admin.'.length) : value;
      return /^[A-Za-z0-9_\-.~]{24,256}$/.test(token) ? token : undefined;
    } },
  },
  { name: 'LOG_LEVEL', group: 'server', value: oneOf(LOG_LEVELS), default: 'info', description: 'pino log level of the JSON lines on stdout' },
  { name: 'DASHBOARD_DIR', group: 'server', value: text('a folder path'), defaultText: 'dashboard/dist', description: 'the built merchant dashboard served at /dashboard/' },
  { name: 'WEB_DIR', group: 'server', value: text('a folder path'), defaultText: 'web/dist', description: 'the built page scripts and checkout drop-in served at /web/ and /sdk/service.js' },
  { name: 'METRICS_PORT', group: 'server', value: integer(0, 65_535), defaultText: 'unset: none', description: 'a second listener serving only GET /metrics without a credential (0: any free port)' },
  { name: 'METRICS_HOST', group: 'server', value: text('an interface address or host name'), default: '127.0.0.1', description: 'interface of the METRICS_PORT listener' },
  // Limits.
  { name: 'RATE_LIMIT_STORE', group: 'server', value: oneOf(['memory', 'postgres']), default: 'memory', description: 'where rate-limit counters live: this process, or the shared PostgreSQL (several instances)' },
  { name: 'RATE_LIMIT_WINDOW_SECONDS', group: 'server', value: integer(1, 3600), default: String(RATE_LIMIT_WINDOW_SECONDS), description: 'the rate-limit window; the API\'s limits are per 60 s (shorten it only for tests)' },
  { name: 'RATE_LIMIT_SCALE', group: 'server', value: decimal(0.001, 1000), default: '1', description: 'multiplies every rate limit (tests reach a limit with few requests)' },
  { name: 'SESSION_TTL_SECONDS', group: 'server', value: integer(60, 30 * 24 * 3600), default: String(12 * 3600), description: 'lifetime of wallet and agent sessions' },
  { name: 'BODY_LIMIT_BYTES', group: 'server', value: integer(1024, 64 * 1024 * 1024), default: String(REQUEST_BODY_BYTES_DEFAULT), description: 'largest request body accepted' },
  // Sandbox and background jobs.
  { name: 'SANDBOX_FLOAT', group: 'server', value: integer(0, 1_000_000_000), default: '1000000', description: 'major units credited to a new merchant\'s test wallet' },
  { name: 'SANDBOX_STEP_MS', group: 'server', value: integer(0, 3_600_000), default: '1500', description: 'time between sandbox payment steps; also the sandbox\'s answer time for a till\'s collection' },
  { name: 'POS_SWEEP_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '5000', description: 'how often expired POS sessions are swept; 0 disables' },
  { name: 'COLLECTION_TIMEOUT_SECONDS', group: 'server', value: integer(10, 3600), default: '120', description: 'how long a till\'s mobile-money collection or a wallet top-up waits for the customer' },
  { name: 'COLLECTION_POLL_MS', group: 'server', value: integer(0, 3_600_000), default: '5000', description: 'how often pending mobile-money collections are stepped or asked at their provider; 0 disables' },
  { name: 'SCHEDULER_POLL_MS', group: 'server', value: integer(10, 60_000), default: '250', description: 'how often the durable payment scheduler looks for due steps' },
  { name: 'WEBHOOK_RETRY_SCALE', group: 'server', value: decimal(0, 1000), default: '1', description: 'multiplies the webhook retry schedule (1 min, 5 min, 30 min, 2 h, 24 h)' },
  { name: 'WEBHOOK_TIMEOUT_MS', group: 'server', value: integer(100, 60_000), default: '10000', description: 'a webhook receiver\'s deadline' },
  { name: 'WEBHOOK_POLL_MS', group: 'server', value: integer(10, 60_000), default: '1000', description: 'how often the dispatcher looks for due deliveries' },
  { name: 'GIFT_CARD_JOB_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '10000', description: 'scheduled gift-card delivery and expiry job; 0 disables' },
  { name: 'GIFT_CARD_VERIFY_MISSES_MAX', group: 'server', value: integer(1, 1_000_000), default: '300', description: 'unknown codes one IP may try on GET /api/gift-cards/verify per window' },
  { name: 'GIFT_CARD_VERIFY_MISS_WINDOW_SECONDS', group: 'server', value: integer(1, 86_400), default: '3600', description: 'the window of GIFT_CARD_VERIFY_MISSES_MAX' },
  { name: 'SUBSCRIPTION_JOB_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '10000', description: 'how often due subscriptions are renewed; 0 disables' },
  { name: 'OFFLINE_QR_JOB_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '60000', description: 'how often expired offline QR vouchers\' money is released; 0 disables' },
  { name: 'PAYOUT_JOB_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '60000', description: 'how often the payout job looks for merchants due; 0 disables' },
  // Money.
  { name: 'FX_SOURCE_URL', group: 'server', value: url(['http:', 'https:'], 'an http(s) URL of a USD rate table (currency-api format)'), defaultText: 'unset: the pinned table', description: 'a live USD rate table in the @fawazahmed0/currency-api format' },
  { name: 'FX_REFRESH_MS', group: 'server', value: integer(1000, 24 * 3_600_000), default: '300000', description: 'FX table refresh interval' },
  { name: 'FX_SPREAD_PCT', group: 'server', value: percent(20), default: '1', description: 'the merchant spread on FX quotes and payments, percent of the mid-market rate' },
  { name: 'PAYMENT_FEES', group: 'server', value: text('a JSON object of rail -> percent'), defaultText: 'built-in schedule', description: 'JSON of rail -> fee percent (0 to 50), e.g. {"mobile_money": 1.5}; unnamed rails keep the built-in fee' },
  { name: 'OFFLINE_PER_PAYMENT_USD', group: 'server', value: integer(0, 1_000_000), default: String(OFFLINE_PER_PAYMENT_USD_DEFAULT), description: 'a terminal\'s default offline limit per payment, US dollars converted' },
  { name: 'OFFLINE_TOTAL_USD', group: 'server', value: integer(0, 10_000_000), default: String(OFFLINE_TOTAL_USD_DEFAULT), description: 'a terminal\'s default offline limit in total, US dollars converted' },
  { name: 'OFFLINE_MAX_AGE_HOURS', group: 'server', value: integer(1, OFFLINE_PAYMENT_AGE_HOURS_MAX), default: String(OFFLINE_PAYMENT_AGE_HOURS_DEFAULT), description: 'an offline payment older than this must sync before the terminal takes more' },
  { name: 'OFFLINE_QR_SETTLEMENT_GRACE_HOURS', group: 'server', value: integer(0, HOURS_30_DAYS), default: '72', description: 'an expired offline QR voucher keeps its money reserved this long' },
  { name: 'NO_PIN_PER_TAP_USD', group: 'server', value: integer(0, 1_000_000), default: String(NO_PIN_PER_TAP_USD_DEFAULT), description: 'a tag\'s default no-PIN limit per tap, US dollars converted' },
  { name: 'NO_PIN_PER_DAY_USD', group: 'server', value: integer(0, 10_000_000), default: String(NO_PIN_PER_DAY_USD_DEFAULT), description: 'a tag\'s default no-PIN limit per UTC day, US dollars converted' },
  { name: 'WALLET_TOP_UP_FEE_PCT', group: 'server', value: percent(20), default: '0', description: 'a wallet top-up\'s fee, paid by the phone on top' },
  { name: 'WALLET_BANK_TRANSFER_FEE_PCT', group: 'server', value: percent(20), default: '0', description: 'the fee on a bank transfer into a wallet\'s virtual account, kept from what arrived' },
  { name: 'WALLET_VIRTUAL_ACCOUNT_PROVIDER', group: 'server', value: oneOf(['paystack', 'flutterwave']), defaultText: 'unset: the first configured that makes accounts in the currency (paystack, then flutterwave)', description: 'the provider a wallet\'s new virtual bank account is opened with, where it is configured and makes accounts in the wallet\'s currency' },
  { name: 'AGENT_CASH_IN_COMMISSION_PCT', group: 'server', value: percent(10), default: '0', description: 'an agent\'s commission on each cash-in' },
  { name: 'AGENT_CASH_OUT_COMMISSION_PCT', group: 'server', value: percent(10), default: '0', description: 'an agent\'s commission on each cash-out, and on each cash pickup it pays' },
  { name: 'AGENT_FLOAT_TOP_UP_FEE_PCT', group: 'server', value: percent(20), default: '0', description: 'an agent\'s float top-up fee, asked of its phone on top' },
  { name: 'AGENT_SETTLEMENT_FEE_PCT', group: 'server', value: percent(20), default: '0', description: 'an agent\'s float settlement fee, debited from the float on top' },
  { name: 'AGENT_SETTLEMENT_MAX_USD', group: 'server', value: integer(0, 10_000_000), default: '5000', description: 'the most one float settlement may be, US dollars converted (0: no settlements)' },
  { name: 'AGENT_SETTLEMENT_DAILY_USD', group: 'server', value: integer(0, 100_000_000), default: '20000', description: 'an agent\'s float settlements in any 24 hours, US dollars converted' },
  { name: 'CASH_PICKUP_HOURS', group: 'server', value: integer(1, HOURS_30_DAYS), default: '72', description: 'how long a cash pickup waits at the agents before its money goes back to the sender' },
  { name: 'WALLET_WITHDRAWAL_FEE_PCT', group: 'server', value: percent(20), default: '0', description: 'a wallet withdrawal\'s fee, debited from the wallet on top' },
  { name: 'WALLET_WITHDRAWAL_MAX_USD', group: 'server', value: integer(0, 10_000_000), default: '1000', description: 'the most one withdrawal may be, US dollars converted (0: no withdrawals)' },
  { name: 'WALLET_WITHDRAWAL_DAILY_USD', group: 'server', value: integer(0, 100_000_000), default: '2000', description: 'a wallet\'s withdrawals in any 24 hours, US dollars converted' },
  { name: 'WALLET_TIER_DEFAULT', group: 'server', value: integer(1, WALLET_TIERS.length), default: String(WALLET_TIER_DEFAULT), description: 'the verification tier of a wallet nobody has set one for (docs/wallet-tiers.md)' },
  ...WALLET_TIERS.flatMap((tier) => WALLET_TIER_LIMITS.map((limit): Setting => ({
    name: walletTierVariable(tier, limit),
    group: 'server',
    value: usdLimit,
    default: WALLET_TIER_DEFAULTS[tier][limit] === null ? 'none' : String(WALLET_TIER_DEFAULTS[tier][limit]),
    description: `tier ${tier}: ${WALLET_TIER_LIMIT_MEANING[limit]}, whole US dollars converted, or none (docs/wallet-tiers.md)`,
  }))),
  { name: 'PAYOUT_HOLD_HOURS', group: 'server', value: integer(0, 24 * 90), default: '72', description: 'offline sales captured less than this long ago are held back from merchant payouts' },
  { name: 'PAYOUT_SCHEDULE_HOUR_UTC', group: 'server', value: integer(0, 23), default: '6', description: 'the UTC hour from which each day\'s automatic payouts are made' },
  // Mail.
  { name: 'SMTP_URL', group: 'server', value: url(['smtp:', 'smtps:'], 'an smtp:// or smtps:// URL such as smtps://user:pass@smtp.example.com:465 (unset it to disable mail)'), defaultText: 'unset: mail disabled', secret: true, description: 'SMTP server of outgoing e-mail (its password included)' },
  {
    name: 'MAIL_FROM', group: 'server', default: 'Tapline Store <store@tapline.invalid>', description: 'the From of outgoing e-mail',
    value: { type: 'text', allowed: 'an e-mail address, optionally with a name: Tapline Store <store@example.com>', check: (value) => (/^[^\r\n]{3,200}$/.test(value) && value.includes('@') ? value : undefined) },
  },
  { name: 'STORE_MAIL_INTERVAL_MS', group: 'server', value: integer(0, 3_600_000), default: '10000', description: 'how often the store\'s e-mail outbox is sent; 0 disables' },
  // Payment providers (rails/*/config.ts read these through Config.providerEnv).
  { name: 'RAIL_ROUTES', group: 'providers', value: text('entries <rail>:<COUNTRY or *>=<provider>[,<provider>...] separated by ;'), defaultText: 'built-in table', description: 'route table entries over the built-in table (README, Live payouts)' },
  { name: 'RAIL_TIMEOUT_MS', group: 'providers', value: integer(100, 120_000), default: '20000', description: 'one request to a provider; past it the outcome is unknown and asked about before any resend' },
  { name: 'RAIL_POLL_MS', group: 'providers', value: integer(500, 24 * 3_600_000), default: '30000', description: 'how often a payout in processing is asked about at its provider' },
  { name: 'RAIL_ATTENTION_HOURS', group: 'providers', value: decimal(0.001, HOURS_30_DAYS), default: '24', description: 'a payout still processing after this long is listed for attention' },
  { name: 'RECONCILE_AFTER_HOURS', group: 'providers', value: decimal(0, 72), default: '2', description: 'how long after a UTC day ends its live payouts and collections are reconciled with each provider' },
  { name: 'PAYSTACK_SECRET_KEY', group: 'providers', value: text(), secret: true, description: 'Paystack\'s secret key (sk_live_... / sk_test_...); unset: Paystack is not used' },
  { name: 'PAYSTACK_BASE_URL', group: 'providers', value: HTTP_URL, default: 'https://api.paystack.co', description: 'Paystack\'s API' },
  { name: 'FLUTTERWAVE_SECRET_KEY', group: 'providers', value: text(), secret: true, description: 'Flutterwave\'s secret key' },
  { name: 'FLUTTERWAVE_SECRET_HASH', group: 'providers', value: text(), secret: true, description: 'the webhook secret hash set in Flutterwave\'s dashboard' },
  { name: 'FLUTTERWAVE_BASE_URL', group: 'providers', value: HTTP_URL, default: 'https://api.flutterwave.com', description: 'Flutterwave\'s API' },
  { name: 'MPESA_CONSUMER_KEY', group: 'providers', value: text(), secret: true, description: 'Daraja app\'s consumer key' },
  { name: 'MPESA_CONSUMER_SECRET', group: 'providers', value: text(), secret: true, description: 'Daraja app\'s consumer secret' },
  { name: 'MPESA_SHORTCODE', group: 'providers', value: text(), description: 'the organisation\'s short code' },
  { name: 'MPESA_PASSKEY', group: 'providers', value: text(), secret: true, description: 'M-Pesa Express passkey (collections)' },
  { name: 'MPESA_INITIATOR_NAME', group: 'providers', value: text(), description: 'the B2C initiator' },
  { name: 'MPESA_SECURITY_CREDENTIAL', group: 'providers', value: text(), secret: true, description: 'the initiator\'s ready-made SecurityCredential' },
  { name: 'MPESA_INITIATOR_PASSWORD', group: 'providers', value: text(), secret: true, untrimmed: true, description: 'the initiator\'s password, encrypted with MPESA_CERTIFICATE (instead of MPESA_SECURITY_CREDENTIAL)' },
  { name: 'MPESA_CERTIFICATE', group: 'providers', value: text('a PEM or the path of a file holding it'), description: 'Safaricom\'s certificate, a PEM or its path' },
  { name: 'MPESA_BASE_URL', group: 'providers', value: HTTP_URL, default: 'https://sandbox.safaricom.co.ke', description: 'Daraja\'s API' },
  { name: 'MOMO_API_USER', group: 'providers', value: text(), description: 'MTN MoMo API user (a UUID)' },
  { name: 'MOMO_API_KEY', group: 'providers', value: text(), secret: true, description: 'MTN MoMo API key' },
  { name: 'MOMO_COLLECTION_SUBSCRIPTION_KEY', group: 'providers', value: text(), secret: true, description: 'Collections product subscription key (request-to-pay)' },
  { name: 'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY', group: 'providers', value: text(), secret: true, description: 'Disbursements product subscription key (payouts)' },
  { name: 'MOMO_TARGET_ENVIRONMENT', group: 'providers', value: text(), description: 'X-Target-Environment: sandbox or the operator\'s platform, e.g. mtnuganda' },
  { name: 'MOMO_BASE_URL', group: 'providers', value: HTTP_URL, default: 'https://sandbox.momodeveloper.mtn.com', description: 'MTN MoMo\'s API' },
];

/**
 * Variables the README documents that other processes read, not the server (the kiosk, npm
 * start): not in SETTINGS, and never warned about as unknown.
 */
export const OTHER_PROCESS_VARIABLES: Readonly<Record<string, string>> = {
  TERMINAL_PORT: 'npm start / npm run terminal',
  NFC_READER: 'the terminal',
  PRINTER: 'the terminal',
  PRINTER_PAPER: 'the terminal',
  PRINTER_LANGUAGE: 'the terminal',
  KIOSK: 'the Electron kiosk app',
  TAPLINE_UPDATE_URL: 'the Electron kiosk app',
  TAPLINE_UPDATE_CHANNEL: 'the Electron kiosk app',
  KIOSK_DISPLAY_LISTEN: 'the terminal host',
  RAIL_FAKES: 'npm start',
  SYNC_SERVER_URL: 'npm run terminal',
};

const BY_NAME = new Map(SETTINGS.map((setting) => [setting.name, setting]));

/** What the error line shows of a value: the value itself, or for a secret only that it is hidden. */
function shown(setting: Setting, raw: string): string {
  return setting.secret ? 'got a value not shown (a secret)' : `got ${JSON.stringify(raw)}`;
}

const FILE_ERRORS: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a folder', ENOTDIR: 'a part of the path is not a folder' };

/**
 * The environment with each secret's NAME_FILE read: the file's text without its trailing newline.
 * Both NAME and NAME_FILE set, an unreadable file or an empty one: a problem.
 */
function withSecretFiles(env: Readonly<Record<string, string | undefined>>, problems: string[]): Record<string, string | undefined> {
  const resolved: Record<string, string | undefined> = { ...env };
  for (const setting of SETTINGS) {
    if (!setting.secret) continue;
    const fileVariable = `${setting.name}_FILE`;
    const path = env[fileVariable]?.trim();
    if (!path) continue;
    if (env[setting.name]?.trim()) {
      problems.push(`${setting.name} and ${fileVariable} are both set: set only one of them`);
      continue;
    }
    try {
      const content = readFileSync(path, 'utf8').replace(/(?:\r?\n)+$/, '');
      if (!content.trim()) problems.push(`${fileVariable}=${path}: the file is empty`);
      else resolved[setting.name] = content;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      problems.push(`${fileVariable}=${path}: cannot read the file (${FILE_ERRORS[code] ?? code})`);
    }
  }
  return resolved;
}

/** Each setting's checked value (absent: unset or bad, the default applies), and every problem. */
function readSettings(env: Readonly<Record<string, string | undefined>>): { raw: Record<string, string | undefined>; values: Map<string, unknown>; problems: string[] } {
  const problems: string[] = [];
  const raw = withSecretFiles(env, problems);
  const values = new Map<string, unknown>();
  for (const setting of SETTINGS) {
    const given = raw[setting.name];
    const text = setting.untrimmed ? given : given?.trim();
    if (text === undefined || text.trim() === '') continue;
    const value = setting.value.check(text);
    if (value === undefined) problems.push(`${setting.name} must be ${setting.value.allowed}, ${shown(setting, text)}`);
    else values.set(setting.name, value);
  }
  return { raw, values, problems };
}

function feeSchedule(raw: string | undefined, problems: string[]): Record<string, string> {
  const schedule: Record<string, string> = { ...DEFAULT_FEE_PERCENT };
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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment against SETTINGS; every bad value is reported at once, by name. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const { raw, values, problems } = readSettings(env);
  /** The checked value, else the declared default checked the same way. */
  const get = <T>(name: string): T => {
    if (values.has(name)) return values.get(name) as T;
    const setting = BY_NAME.get(name);
    if (setting?.default === undefined) throw new Error(`${name} has no default`);
    return setting.value.check(setting.default) as T;
  };
  const optional = <T>(name: string): T | undefined => values.get(name) as T | undefined;

  const port = get<number>('PORT');
  const host = get<string>('HOST');
  const publicBaseUrl = (optional<string>('PUBLIC_BASE_URL') ?? `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`).replace(/\/+$/, '');

  let railRoutes: RouteTable = DEFAULT_ROUTES;
  try {
    railRoutes = parseRoutes(optional<string>('RAIL_ROUTES'));
  } catch (error) {
    if (!(error instanceof RouteConfigError)) throw error;
    problems.push(error.message);
  }
  // The adapters read their own variables (rails/*/config.ts), as set or read from their files.
  const providerEnv = Object.fromEntries(
    SETTINGS.filter((setting) => setting.group === 'providers' && /^(PAYSTACK|FLUTTERWAVE|MPESA|MOMO)_/.test(setting.name) && raw[setting.name] !== undefined).map((setting) => [setting.name, raw[setting.name]]),
  );

  const config: Config = {
    providerEnv,
    railRoutes,
    railTimeoutMs: get('RAIL_TIMEOUT_MS'),
    railPollMs: get('RAIL_POLL_MS'),
    railAttentionHours: get('RAIL_ATTENTION_HOURS'),
    reconcileAfterHours: get('RECONCILE_AFTER_HOURS'),
    port,
    host,
    publicBaseUrl,
    databaseUrl: optional('DATABASE_URL'),
    secretsKey: optional('SECRETS_KEY'),
    dataDir: resolve(get<string>('DATA_DIR')),
    dashboardDir: resolve(optional<string>('DASHBOARD_DIR') ?? new URL('../../dashboard/dist', import.meta.url).pathname),
    webDir: resolve(optional<string>('WEB_DIR') ?? new URL('../../web/dist', import.meta.url).pathname),
    adminToken: optional('ADMIN_TOKEN'),
    logLevel: get('LOG_LEVEL'),
    rateLimitStore: get('RATE_LIMIT_STORE'),
    rateLimitWindowSeconds: get('RATE_LIMIT_WINDOW_SECONDS'),
    rateLimitScale: get('RATE_LIMIT_SCALE'),
    sandboxFloat: get('SANDBOX_FLOAT'),
    sessionTtlSeconds: get('SESSION_TTL_SECONDS'),
    bodyLimitBytes: get('BODY_LIMIT_BYTES'),
    posSweepIntervalMs: get('POS_SWEEP_INTERVAL_MS'),
    sandboxStepMs: get('SANDBOX_STEP_MS'),
    collectionTimeoutSeconds: get('COLLECTION_TIMEOUT_SECONDS'),
    collectionPollMs: get('COLLECTION_POLL_MS'),
    schedulerPollMs: get('SCHEDULER_POLL_MS'),
    webhookRetryScale: get('WEBHOOK_RETRY_SCALE'),
    webhookTimeoutMs: get('WEBHOOK_TIMEOUT_MS'),
    webhookPollMs: get('WEBHOOK_POLL_MS'),
    fxSourceUrl: optional('FX_SOURCE_URL'),
    fxRefreshMs: get('FX_REFRESH_MS'),
    fxSpreadPercent: get('FX_SPREAD_PCT'),
    feePercentByRail: feeSchedule(optional('PAYMENT_FEES'), problems),
    giftCardJobIntervalMs: get('GIFT_CARD_JOB_INTERVAL_MS'),
    giftCardVerifyMissesMax: get('GIFT_CARD_VERIFY_MISSES_MAX'),
    giftCardVerifyMissWindowSeconds: get('GIFT_CARD_VERIFY_MISS_WINDOW_SECONDS'),
    smtpUrl: optional('SMTP_URL'),
    mailFrom: get('MAIL_FROM'),
    storeMailIntervalMs: get('STORE_MAIL_INTERVAL_MS'),
    offlinePerPaymentUsd: get('OFFLINE_PER_PAYMENT_USD'),
    offlineTotalUsd: get('OFFLINE_TOTAL_USD'),
    offlineMaxAgeHours: get('OFFLINE_MAX_AGE_HOURS'),
    offlineQrSettlementGraceHours: get('OFFLINE_QR_SETTLEMENT_GRACE_HOURS'),
    offlineQrJobIntervalMs: get('OFFLINE_QR_JOB_INTERVAL_MS'),
    subscriptionJobIntervalMs: get('SUBSCRIPTION_JOB_INTERVAL_MS'),
    noPinPerTapUsd: get('NO_PIN_PER_TAP_USD'),
    noPinPerDayUsd: get('NO_PIN_PER_DAY_USD'),
    walletTopUpFeePercent: get('WALLET_TOP_UP_FEE_PCT'),
    walletBankTransferFeePercent: get('WALLET_BANK_TRANSFER_FEE_PCT'),
    walletVirtualAccountProvider: optional('WALLET_VIRTUAL_ACCOUNT_PROVIDER'),
    agentCashInCommissionPercent: get('AGENT_CASH_IN_COMMISSION_PCT'),
    agentCashOutCommissionPercent: get('AGENT_CASH_OUT_COMMISSION_PCT'),
    agentFloatTopUpFeePercent: get('AGENT_FLOAT_TOP_UP_FEE_PCT'),
    agentSettlementFeePercent: get('AGENT_SETTLEMENT_FEE_PCT'),
    agentSettlementMaxUsd: get('AGENT_SETTLEMENT_MAX_USD'),
    agentSettlementDailyUsd: get('AGENT_SETTLEMENT_DAILY_USD'),
    cashPickupHours: get('CASH_PICKUP_HOURS'),
    walletWithdrawalFeePercent: get('WALLET_WITHDRAWAL_FEE_PCT'),
    walletWithdrawalMaxUsd: get('WALLET_WITHDRAWAL_MAX_USD'),
    walletWithdrawalDailyUsd: get('WALLET_WITHDRAWAL_DAILY_USD'),
    walletTiers: walletTiers(get),
    walletTierDefault: get<number>('WALLET_TIER_DEFAULT') as WalletTier,
    payoutHoldHours: get('PAYOUT_HOLD_HOURS'),
    payoutScheduleHourUtc: get('PAYOUT_SCHEDULE_HOUR_UTC'),
    payoutJobIntervalMs: get('PAYOUT_JOB_INTERVAL_MS'),
    metricsHost: get('METRICS_HOST'),
    metricsPort: optional('METRICS_PORT'),
    trustProxy: get('TRUST_PROXY') === '1',
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Warnings, not errors: a variable that looks like Tapline's (TAPLINE_*, a provider's prefix,
 * RAIL_*) but is no setting, most likely a typo; and NAME_FILE set for a setting that is no secret.
 */
export function configWarnings(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (BY_NAME.has(name) || name in OTHER_PROCESS_VARIABLES) continue;
    const fileOf = name.endsWith('_FILE') ? BY_NAME.get(name.slice(0, -'_FILE'.length)) : undefined;
    if (fileOf?.secret) continue;
    if (fileOf) warnings.push(`${name} is ignored: only secrets are read from files (${fileOf.name} is not one; set it directly)`);
    else if (/^(TAPLINE|PAYSTACK|FLUTTERWAVE|MPESA|MOMO|RAIL)_/.test(name)) warnings.push(`${name} is not a Tapline setting and is ignored (a typo? docs/configuration.md lists them)`);
  }
  return warnings;
}

/** docs/configuration.md, generated from SETTINGS (`npm run config:docs`). */
export function configurationReference(): string {
  // Pipes escaped; < and > outside code spans as entities, so that <host> is not read as HTML.
  const cell = (value: string) => value.replace(/\|/g, '\\|').split('`').map((part, index) => (index % 2 === 0 ? part.replace(/</g, '&lt;').replace(/>/g, '&gt;') : part)).join('`');
  const rows = (group: SettingGroup) => SETTINGS.filter((setting) => setting.group === group).map((setting) => {
    const fallback = setting.default !== undefined ? `\`${setting.default}\`` : (setting.defaultText ?? 'unset');
    const file = setting.secret ? `yes, or \`${setting.name}_FILE\`` : '';
    return `| \`${setting.name}\` | ${cell(setting.value.allowed)} | ${cell(fallback)} | ${file} | ${cell(setting.description)} |`;
  });
  const header = ['| variable | allowed | default | secret | meaning |', '|---|---|---|---|---|'];
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from SETTINGS in sync-server/src/config.ts by `npm run config:docs`; a test fails while it differs. -->',
    '',
    'Every environment variable the sync server reads. The server checks all of them at start and,',
    'if any is bad, prints one line per bad value (its name, the value unless it is a secret, what is',
    'allowed) and exits with code 2 before it opens the database. A variable that looks like a',
    'Tapline setting but is none (`TAPLINE_*`, `PAYSTACK_*`, `FLUTTERWAVE_*`, `MPESA_*`, `MOMO_*`,',
    '`RAIL_*`) is reported as a warning at start, as a likely typo.',
    '',
    'A secret may be given in a file instead: `NAME_FILE=/path` reads the value from that file, its',
    'trailing newline removed (systemd credentials, Docker secrets; docs/deploy.md). Setting both',
    '`NAME` and `NAME_FILE` is an error, and so is a file that cannot be read or is empty. Secrets',
    'never appear in error lines or logs.',
    '',
    '## The server',
    '',
    ...header,
    ...rows('server'),
    '',
    '## Payment providers',
    '',
    'Each provider is used when its required variables are set (README, Live payouts).',
    '',
    ...header,
    ...rows('providers'),
    '',
    '## Read by other processes',
    '',
    'Documented in the README, read by the kiosk or the developer commands, not by the server:',
    Object.entries(OTHER_PROCESS_VARIABLES).map(([name, by]) => `\`${name}\` (${by})`).join(', ') + '.',
    '',
  ].join('\n');
}
