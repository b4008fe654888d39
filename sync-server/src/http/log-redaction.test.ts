import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { uniqueHandle, useTestServer } from '../testing/server.ts';
import { redactQueryValues } from './log-redaction.ts';

describe('redactQueryValues', () => {
  it('keeps the path and the parameter names, never a value', () => {
    assert.equal(redactQueryValues('/api/payments'), '/api/payments');
    assert.equal(redactQueryValues('/api/payments?'), '/api/payments?');
    assert.equal(redactQueryValues('/api/gift-cards/verify?code=gc_abc&x=1'), '/api/gift-cards/verify?code=[redacted]&x=[redacted]');
    assert.equal(redactQueryValues('/a?limit=20&&offset=0&empty='), '/a?limit=[redacted]&&offset=[redacted]&empty=[redacted]');
    // A bare value, or a "key" that is no parameter name, may be the secret itself.
    assert.equal(redactQueryValues('/a?gc_0123456789abcdef'), '/a?[redacted]');
    assert.equal(redactQueryValues(`/a?${'k'.repeat(41)}=1&tok%20en=2&ok_key.sub[0]=3`), '/a?[redacted]=[redacted]&[redacted]=[redacted]&ok_key.sub[0]=[redacted]');
  });
});

for (const target of await databaseTargets()) {
  describe(`request logs on ${target.name}`, () => {
    const lines: string[] = [];
    const server = useTestServer(target, { env: { LOG_LEVEL: 'info' }, app: { logger: true, logStream: { write: (line: string) => lines.push(line) } } });

    it('carry no query value of any route, public or not, known or unknown', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const secret = `gc_${'5ec7e7'.repeat(10)}abcd`;
      const handle = uniqueHandle('logged');
      await s.request('GET', `/api/gift-cards/verify?code=${secret}&trace=${handle}`);
      await s.request('GET', `/api/payments?limit=5&reference=${handle}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      await s.request('GET', `/api/store/products?search=${handle}`);
      await s.request('GET', `/api/no-such-route?token=${handle}`);
      await s.request('GET', `/tap/TG00000000?session=${handle}`);

      const logged = lines.join('');
      const urls = lines.map((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url).filter((url): url is string => url !== undefined);
      assert.ok(urls.includes('/api/gift-cards/verify?code=[redacted]&trace=[redacted]'), JSON.stringify(urls));
      assert.ok(urls.includes('/api/payments?limit=[redacted]&reference=[redacted]'));
      assert.ok(urls.includes('/api/store/products?search=[redacted]'));
      assert.ok(urls.includes('/api/no-such-route?token=[redacted]'));
      assert.ok(urls.includes('/tap/TG00000000?session=[redacted]'));
      assert.ok(!logged.includes(secret.slice(3)), 'the gift-card code is in the log');
      assert.ok(!logged.includes(handle), 'a query value is in the log');
    });
  });
}
