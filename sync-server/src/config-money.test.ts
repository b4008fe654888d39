import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_FEE_PERCENT, loadConfig } from './config.ts';
import { scaledRetryDelays } from './events/dispatcher.ts';

describe('configuration of payments, FX and webhooks', () => {
  it('has the spec\'s defaults: 10 s webhook timeout, unscaled retries, 5-minute FX refresh, a few seconds per sandbox step', () => {
    const config = loadConfig({});
    assert.equal(config.webhookTimeoutMs, 10_000);
    assert.deepEqual(scaledRetryDelays(config.webhookRetryScale), [60_000, 300_000, 1_800_000, 7_200_000, 86_400_000]);
    assert.equal(config.fxRefreshMs, 300_000);
    assert.equal(config.fxSourceUrl, undefined);
    assert.equal(config.fxSpreadPercent, '1');
    assert.equal(config.sandboxStepMs, 1500);
    assert.deepEqual(config.feePercentByRail, DEFAULT_FEE_PERCENT);
  });

  it('reads overrides, fee entries one by one', () => {
    const config = loadConfig({
      WEBHOOK_RETRY_SCALE: '0.001',
      SANDBOX_STEP_MS: '50',
      FX_SOURCE_URL: 'https://rates.example.com/v1/currencies/usd.json',
      FX_SPREAD_PCT: '0.75',
      PAYMENT_FEES: '{"mobile_money": 2, "bank_transfer": "0.8"}',
    });
    assert.deepEqual(scaledRetryDelays(config.webhookRetryScale), [60, 300, 1800, 7200, 86_400]);
    assert.equal(config.sandboxStepMs, 50);
    assert.equal(config.fxSourceUrl, 'https://rates.example.com/v1/currencies/usd.json');
    assert.equal(config.fxSpreadPercent, '0.75');
    assert.equal(config.feePercentByRail.mobile_money, '2');
    assert.equal(config.feePercentByRail.bank_transfer, '0.8');
    assert.equal(config.feePercentByRail.card, DEFAULT_FEE_PERCENT.card);
  });

  it('names every bad value', () => {
    assert.throws(
      () => loadConfig({ WEBHOOK_RETRY_SCALE: '-1', FX_SOURCE_URL: 'ftp://x', FX_SPREAD_PCT: '1.23456', PAYMENT_FEES: '{"pigeon": 1}', SANDBOX_STEP_MS: 'soon' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 5);
        for (const name of ['WEBHOOK_RETRY_SCALE', 'FX_SOURCE_URL', 'FX_SPREAD_PCT', 'PAYMENT_FEES', 'SANDBOX_STEP_MS']) assert.match(error.message, new RegExp(name));
        return true;
      },
    );
    assert.throws(() => loadConfig({ PAYMENT_FEES: 'not json' }), /PAYMENT_FEES must be JSON/);
  });
});
