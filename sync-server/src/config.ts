import { resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  /** PostgreSQL connection string; undefined: embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The admin token from the environment (without the `admin.` prefix), if set. */
  adminToken: string | undefined;
  logLevel: LogLevel;
  /** Where rate-limit counters live: this process only, or the shared database. */
  rateLimitStore: 'memory' | 'postgres';
  /** Sandbox float credited to a new merchant's test wallet, in major units of its currency. */
  sandboxFloat: number;
  /** Wallet and agent session lifetime. */
  sessionTtlSeconds: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
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

  const config: Config = {
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    adminToken,
    logLevel,
    rateLimitStore,
    sandboxFloat: integer(env, 'SANDBOX_FLOAT', 1_000_000, 0, 1_000_000_000, problems),
    sessionTtlSeconds: integer(env, 'SESSION_TTL_SECONDS', 12 * 3600, 60, 30 * 24 * 3600, problems),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024, problems),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
