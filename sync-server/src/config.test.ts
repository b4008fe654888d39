import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

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
