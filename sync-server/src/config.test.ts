import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ConfigError, OTHER_PROCESS_VARIABLES, SETTINGS, configWarnings, configurationReference, loadConfig } from './config.ts';
import { FLUTTERWAVE_ENV_VARS } from './rails/flutterwave/config.ts';
import { ENV_VARS as MOMO_ENV_VARS } from './rails/momo/config.ts';
import { MPESA_ENV_VARS } from './rails/mpesa/config.ts';
import { ENV_VARS as PAYSTACK_ENV_VARS } from './rails/paystack/config.ts';

describe('configuration from the environment', () => {
  it('has working defaults: port 3000, embedded database in ./data', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:3000');
    assert.equal(config.databaseUrl, undefined);
    assert.match(config.dataDir, /\/data$/);
    assert.equal(config.logLevel, 'info');
  });

  it('reads every variable and strips an admin. prefix and a trailing slash', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://pay.example.africa/',
      DATABASE_URL: 'postgres://u@db:5432/tapline',
      DATA_DIR: '/var/lib/tapline',
      ADMIN_TOKEN: 'admin.abcdefghijklmnopqrstuvwxyz',
      LOG_LEVEL: 'warn',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.publicBaseUrl, 'https://pay.example.africa');
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/tapline');
    assert.equal(config.dataDir, '/var/lib/tapline');
    assert.equal(config.adminToken, 'abcdefghijklmnopqrstuvwxyz');
    assert.equal(config.logLevel, 'warn');
  });

  it('reports every bad value at once, by name', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', PUBLIC_BASE_URL: 'ftp://x', DATABASE_URL: 'mysql://x', ADMIN_TOKEN: 'short', LOG_LEVEL: 'loud' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 5);
        for (const name of ['PORT', 'PUBLIC_BASE_URL', 'DATABASE_URL', 'ADMIN_TOKEN', 'LOG_LEVEL']) assert.match(error.message, new RegExp(name));
        return true;
      },
    );
  });

  it('reads the subscription renewal interval: 10 seconds by default, 0 disables it, anything else is refused by name', () => {
    assert.equal(loadConfig({}).subscriptionJobIntervalMs, 10_000);
    assert.equal(loadConfig({ SUBSCRIPTION_JOB_INTERVAL_MS: '0' }).subscriptionJobIntervalMs, 0);
    assert.equal(loadConfig({ SUBSCRIPTION_JOB_INTERVAL_MS: '60000' }).subscriptionJobIntervalMs, 60_000);
    for (const value of ['-1', 'often', '1.5', '3600001']) {
      assert.throws(() => loadConfig({ SUBSCRIPTION_JOB_INTERVAL_MS: value }), /SUBSCRIPTION_JOB_INTERVAL_MS must be an integer from 0 to 3600000/, value);
    }
  });

  it('reads the rate-limit window and scale: the spec\'s 60 seconds and table by default, bad values refused by name', () => {
    assert.equal(loadConfig({}).rateLimitWindowSeconds, 60);
    assert.equal(loadConfig({}).rateLimitScale, 1);
    const tight = loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '2', RATE_LIMIT_SCALE: '0.01' });
    assert.equal(tight.rateLimitWindowSeconds, 2);
    assert.equal(tight.rateLimitScale, 0.01);
    assert.throws(() => loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '0' }), /RATE_LIMIT_WINDOW_SECONDS/);
    assert.throws(() => loadConfig({ RATE_LIMIT_SCALE: '0' }), /RATE_LIMIT_SCALE/);
  });
});

describe('the configuration schema (SETTINGS)', () => {
  const sourceRoot = fileURLToPath(new URL('./', import.meta.url));
  const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

  it('declares every environment variable the server\'s code reads, once, with a default its own check accepts', () => {
    const names = SETTINGS.map((setting) => setting.name);
    assert.equal(new Set(names).size, names.length, 'each variable once');
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory() && entry.name !== 'testing') walk(path);
        else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          const source = readFileSync(path, 'utf8');
          for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]{2,})\b|\benv\[['"]([A-Z][A-Z0-9_]{2,})['"]\]/g)) read.add((match[1] ?? match[2])!);
        }
      }
    };
    walk(sourceRoot);
    for (const list of [MPESA_ENV_VARS, MOMO_ENV_VARS, FLUTTERWAVE_ENV_VARS, PAYSTACK_ENV_VARS]) for (const name of list) read.add(name);
    assert.ok(read.has('MPESA_CONSUMER_KEY') && read.has('PAYSTACK_SECRET_KEY'), [...read].join(', '));
    assert.deepEqual([...read].filter((name) => !names.includes(name)).sort(), [], 'read by the code but not in SETTINGS');
    for (const setting of SETTINGS) {
      assert.ok(setting.description.length > 10, setting.name);
      if (setting.default !== undefined) assert.notEqual(setting.value.check(setting.default), undefined, `${setting.name}'s default ${setting.default} is ${setting.value.allowed}`);
      else assert.ok(setting.defaultText ?? setting.group === 'providers', `${setting.name} says what happens when it is unset (a provider's variable: the provider is not configured)`);
    }
  });

  it('docs/configuration.md is generated from it (npm run config:docs)', () => {
    const file = readFileSync(join(repoRoot, 'docs/configuration.md'), 'utf8');
    assert.equal(file, configurationReference(), 'docs/configuration.md differs from SETTINGS: run npm run config:docs');
  });

  it('the README\'s configuration tables name exactly the settings and the variables of the other processes', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const namesIn = (section: string) => {
      const start = readme.indexOf(`\n## ${section}\n`);
      assert.ok(start >= 0, section);
      const end = readme.indexOf('\n## ', start + 1);
      const found = new Set<string>();
      for (const line of readme.slice(start, end).split('\n')) {
        const firstCell = /^\| ([^|]+) \|/.exec(line)?.[1];
        if (!firstCell) continue;
        for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)) found.add(match[1]!);
      }
      return found;
    };
    const documented = new Set([...namesIn('Configuration'), ...namesIn('Live payouts through payment providers')]);
    const expected = new Set([...SETTINGS.map((setting) => setting.name), ...Object.keys(OTHER_PROCESS_VARIABLES).filter((name) => !name.startsWith('PRINTER_') && name !== 'SYNC_SERVER_URL')]);
    assert.deepEqual([...expected].filter((name) => !documented.has(name)).sort(), [], 'in the schema, missing from the README');
    assert.deepEqual([...documented].filter((name) => !expected.has(name)).sort(), [], 'in the README, missing from the schema');
  });

  it('reports every bad value at once, one line each with what is allowed, and never shows a secret', () => {
    const secrets = { ADMIN_TOKEN: 'tiny-secret', SECRETS_KEY: 'not-a-key-but-secret', DATABASE_URL: 'mysql://root:hunter2@db/x', SMTP_URL: 'http://user:pw-secret@mail' };
    assert.throws(
      () => loadConfig({ ...secrets, PORT: '70000', TRUST_PROXY: 'yes', RATE_LIMIT_STORE: 'redis', FX_SPREAD_PCT: '50', PAYSTACK_BASE_URL: 'api.paystack.co' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'PORT must be an integer from 0 to 65535, got "70000"',
          'TRUST_PROXY must be one of 0, 1, got "yes"',
          'DATABASE_URL must be a postgres:// or postgresql:// connection string (unset it to use the embedded database), got a value not shown (a secret)',
          'SECRETS_KEY must be 32 bytes as 64 hex characters or base64 (for example: openssl rand -hex 32), got a value not shown (a secret)',
          'ADMIN_TOKEN must be 24 to 256 URL-safe characters (letters, digits, - _ . ~), got a value not shown (a secret)',
          'RATE_LIMIT_STORE must be one of memory, postgres, got "redis"',
          'FX_SPREAD_PCT must be a percentage from 0 to 20 with at most 4 decimals, got "50"',
          'SMTP_URL must be an smtp:// or smtps:// URL such as smtps://user:pass@smtp.example.com:465 (unset it to disable mail), got a value not shown (a secret)',
          'PAYSTACK_BASE_URL must be an http(s) URL, got "api.paystack.co"',
        ]);
        for (const secret of ['tiny-secret', 'not-a-key-but-secret', 'hunter2', 'pw-secret']) assert.ok(!error.message.includes(secret), secret);
        return true;
      },
    );
  });

  it('keeps what valid values meant: TRUST_PROXY, the providers\' variables as set, unset METRICS_PORT', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
    assert.equal(loadConfig({}).metricsPort, undefined);
    assert.equal(loadConfig({ METRICS_PORT: '0' }).metricsPort, 0);
    assert.equal(loadConfig({}).walletVirtualAccountProvider, undefined);
    assert.equal(loadConfig({ WALLET_VIRTUAL_ACCOUNT_PROVIDER: 'flutterwave' }).walletVirtualAccountProvider, 'flutterwave');
    assert.throws(() => loadConfig({ WALLET_VIRTUAL_ACCOUNT_PROVIDER: 'stripe' }), (error: unknown) => error instanceof ConfigError && error.problems.includes('WALLET_VIRTUAL_ACCOUNT_PROVIDER must be one of paystack, flutterwave, got "stripe"'));
    const config = loadConfig({ PAYSTACK_SECRET_KEY: 'sk_test_x', MPESA_INITIATOR_PASSWORD: ' pass word ', UNRELATED: 'x' });
    assert.deepEqual(config.providerEnv, { PAYSTACK_SECRET_KEY: 'sk_test_x', MPESA_INITIATOR_PASSWORD: ' pass word ' });
  });

  it('warns of variables that look like Tapline\'s but are none, and of _FILE on a setting that is no secret', () => {
    assert.deepEqual(configWarnings({ TAPLINE_PORT: '1', PAYSTACK_SECRET_KY: 'x', PORT: '1', HOME: '/root', TAPLINE_UPDATE_URL: 'https://u', ADMIN_TOKEN_FILE: '/x', MPESA_SHORTCODE_FILE: '/y' }), [
      'MPESA_SHORTCODE_FILE is ignored: only secrets are read from files (MPESA_SHORTCODE is not one; set it directly)',
      'PAYSTACK_SECRET_KY is not a Tapline setting and is ignored (a typo? docs/configuration.md lists them)',
      'TAPLINE_PORT is not a Tapline setting and is ignored (a typo? docs/configuration.md lists them)',
    ]);
  });
});

describe('secrets from files (NAME_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapline-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  it('reads each secret from its file, the trailing newline dropped, as if it were set', () => {
    const key = 'ab'.repeat(32);
    const config = loadConfig({
      ADMIN_TOKEN_FILE: file('admin-token', 'admin.abcdefghijklmnopqrstuvwxyz\n'),
      SECRETS_KEY_FILE: file('secrets-key', `${key}\r\n`),
      DATABASE_URL_FILE: file('database-url', 'postgres://tapline:p%40ss@db:5432/tapline\n'),
      SMTP_URL_FILE: file('smtp-url', 'smtps://u:p@smtp.example.com:465'),
      PAYSTACK_SECRET_KEY_FILE: file('paystack', 'sk_live_from_file\n'),
      MPESA_INITIATOR_PASSWORD_FILE: file('mpesa-password', ' spaced pass \n'),
    });
    assert.equal(config.adminToken, 'abcdefghijklmnopqrstuvwxyz');
    assert.equal(config.secretsKey?.toString('hex'), key);
    assert.equal(config.databaseUrl, 'postgres://tapline:p%40ss@db:5432/tapline');
    assert.equal(config.smtpUrl, 'smtps://u:p@smtp.example.com:465');
    assert.equal(config.providerEnv.PAYSTACK_SECRET_KEY, 'sk_live_from_file');
    assert.equal(config.providerEnv.MPESA_INITIATOR_PASSWORD, ' spaced pass ', 'only the newline goes: a password keeps its spaces');
    // A file's value is checked like a variable's, and still not shown.
    assert.throws(() => loadConfig({ ADMIN_TOKEN_FILE: file('short-token', 'short-secret\n') }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.problems, ['ADMIN_TOKEN must be 24 to 256 URL-safe characters (letters, digits, - _ . ~), got a value not shown (a secret)']);
      return true;
    });
  });

  it('refuses both set, an unreadable file and an empty one, all at once, without showing a secret', () => {
    const missing = join(dir, 'nope');
    assert.throws(
      () => loadConfig({
        ADMIN_TOKEN: 'abcdefghijklmnopqrstuvwxyz-env-secret',
        ADMIN_TOKEN_FILE: file('admin-both', 'abcdefghijklmnopqrstuvwxyz-file-secret\n'),
        SECRETS_KEY_FILE: missing,
        DATABASE_URL_FILE: dir,
        FLUTTERWAVE_SECRET_HASH_FILE: file('empty', '\n'),
      }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'DATABASE_URL_FILE=' + dir + ': cannot read the file (it is a folder)',
          'SECRETS_KEY_FILE=' + missing + ': cannot read the file (no such file)',
          'ADMIN_TOKEN and ADMIN_TOKEN_FILE are both set: set only one of them',
          'FLUTTERWAVE_SECRET_HASH_FILE=' + join(dir, 'empty') + ': the file is empty',
        ]);
        assert.ok(!error.message.includes('env-secret') && !error.message.includes('file-secret'));
        return true;
      },
    );
  });
});
