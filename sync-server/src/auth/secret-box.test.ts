import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { useTestServer } from '../testing/server.ts';
import { sealStoredWebhookSecrets } from '../modules/merchants/store.ts';
import { createSecretBox, isSealed, keyFromFile, parseSecretsKey } from './secret-box.ts';

describe('secret box', () => {
  it('seals with a fresh IV every time and opens what it sealed; another key cannot open it', () => {
    const box = createSecretBox(randomBytes(32));
    const first = box.seal('whsec_0123');
    const second = box.seal('whsec_0123');
    assert.match(first, /^sealed\.v1\.[A-Za-z0-9_-]+$/);
    assert.notEqual(first, second);
    assert.ok(!first.includes('whsec_0123'));
    assert.equal(box.open(first), 'whsec_0123');
    assert.equal(box.open(second), 'whsec_0123');
    assert.throws(() => createSecretBox(randomBytes(32)).open(first));
    // A value stored before sealing existed reads as it is.
    assert.equal(box.open('whsec_legacy'), 'whsec_legacy');
    assert.throws(() => createSecretBox(randomBytes(16)), /32 bytes/);
  });

  it('reads SECRETS_KEY as 64 hex characters or base64 of 32 bytes, and nothing else', () => {
    const key = randomBytes(32);
    assert.deepEqual(parseSecretsKey(key.toString('hex')), key);
    assert.deepEqual(parseSecretsKey(key.toString('base64')), key);
    assert.deepEqual(parseSecretsKey(key.toString('base64url')), key);
    for (const bad of ['', 'short', key.toString('hex').slice(2), randomBytes(16).toString('base64'), `${key.toString('hex')}zz`]) {
      assert.equal(parseSecretsKey(bad), undefined, bad);
    }
  });

  it('creates the key file once (mode 0600) and reads the same key back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-key-'));
    try {
      const path = join(dir, 'nested', 'secrets.key');
      const created = keyFromFile(path);
      assert.equal(created.length, 32);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(readFileSync(path, 'utf8').trim(), created.toString('hex'));
      assert.deepEqual(keyFromFile(path), created);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const target of await databaseTargets()) {
  describe(`webhook secrets at rest on ${target.name}`, () => {
    const server = useTestServer(target);

    it('stores the webhook secret sealed, answers it in plaintext once, and seals secrets stored before', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const [stored] = await s.db.query<{ webhook_secret: string }>('SELECT webhook_secret FROM merchants WHERE id = $1', [merchant.id]);
      assert.ok(isSealed(stored!.webhook_secret));
      assert.ok(!stored!.webhook_secret.includes(merchant.webhookSecret.slice(6)));
      assert.equal(s.context.secrets.open(stored!.webhook_secret), merchant.webhookSecret);

      const rotated = await s.request<{ webhookSecret: string }>('PATCH', '/api/merchant/settings', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { rotateWebhookSecret: true } });
      assert.equal(rotated.status, 200);
      const [after] = await s.db.query<{ webhook_secret: string }>('SELECT webhook_secret FROM merchants WHERE id = $1', [merchant.id]);
      assert.equal(s.context.secrets.open(after!.webhook_secret), rotated.body.webhookSecret);

      // A row from before sealing (plaintext) is sealed at the next start-up, keeping its value.
      await s.db.query('UPDATE merchants SET webhook_secret = $2 WHERE id = $1', [merchant.id, 'whsec_from_before']);
      assert.ok((await sealStoredWebhookSecrets(s.db, s.context.secrets)) >= 1);
      const [resealed] = await s.db.query<{ webhook_secret: string }>('SELECT webhook_secret FROM merchants WHERE id = $1', [merchant.id]);
      assert.ok(isSealed(resealed!.webhook_secret));
      assert.equal(s.context.secrets.open(resealed!.webhook_secret), 'whsec_from_before');
      assert.equal(await sealStoredWebhookSecrets(s.db, s.context.secrets), 0, 'nothing left in plaintext');
    });
  });
}
