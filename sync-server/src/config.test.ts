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
});
