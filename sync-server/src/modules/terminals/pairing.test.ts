// Pairing a kiosk with a short code, on both databases over real HTTP: the code comes with a
// new terminal or on request, is stored hashed, pairs once within 10 minutes, gives the terminal
// a new token (the old one stops working), and an IP that guesses is locked out.
import { PAIRING_MISS_WINDOW_SECONDS, PAIRING_MISSES_MAX } from '@tapline/shared/limits';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useTestServer } from '../../testing/index.ts';
import { connectTerminal } from '../../testing/offline.ts';
import { PAIRING_ALPHABET, canonicalPairingCode, newPairingCode } from './pairing.ts';

const CODE_SHAPE = new RegExp(`^[${PAIRING_ALPHABET}]{4}-[${PAIRING_ALPHABET}]{4}$`);

describe('pairing codes', () => {
  it('are 8 characters without look-alikes, shown ABCD-EFGH, read whatever the case, spaces and dashes', () => {
    const codes = new Set(Array.from({ length: 200 }, () => newPairingCode()));
    assert.equal(codes.size, 200);
    for (const code of codes) assert.match(code, CODE_SHAPE);
    assert.doesNotMatch(PAIRING_ALPHABET, /[01OIL]/);
    assert.equal(canonicalPairingCode(' abcd-efgh '), 'ABCDEFGH');
    assert.equal(canonicalPairingCode('abcd efgk'), 'ABCDEFGK');
    assert.equal(canonicalPairingCode('ABCD-EFGI'), null, 'I is not in the alphabet');
    assert.equal(canonicalPairingCode('ABCD-EFG'), null);
    assert.equal(canonicalPairingCode('ABCD-EFG0'), null);
  });
});

for (const target of await databaseTargets()) {
  describe(`terminal pairing over HTTP on ${target.name}`, () => {
    let offsetMs = 0;
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs) });

    async function merchantWithTerminal() {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string; token: string; pairingCode: string; pairingExpiresAt: string; pairingQr: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { s, merchant, key, terminal: created.body };
    }

    const pair = (code: unknown) => server().request<{ token: string; terminal: { id: string; name: string; mode: string; merchant: { name: string; handle: string } }; code?: string; error?: string }>('POST', '/api/terminals/pair', { body: { code } });
    const context = (token: string) => server().request<{ terminal: { id: string } | null }>('GET', '/api/pos/context', { headers: { authorization: `Bearer term.${token}` } });

    it('answers a pairing code and its QR with a new terminal; the code pairs once and the kiosk gets a new token, the old one stops working', async () => {
      const { s, merchant, terminal } = await merchantWithTerminal();
      assert.match(terminal.pairingCode, CODE_SHAPE);
      assert.match(terminal.pairingQr, /^data:image\/png;base64,/);
      const lifetime = Date.parse(terminal.pairingExpiresAt) - Date.now() - offsetMs;
      assert.ok(lifetime > 590_000 && lifetime <= 600_000, `valid 10 minutes: ${lifetime}`);
      // Stored as a hash only.
      const stored = await s.db.query<{ code_hash: string }>('SELECT code_hash FROM terminal_pairing_codes WHERE terminal_id = $1', [terminal.id]);
      assert.equal(stored.length, 1);
      assert.match(stored[0]!.code_hash, /^[0-9a-f]{64}$/);
      assert.ok(!JSON.stringify(stored).includes(terminal.pairingCode.replace('-', '')));

      // Typed in lower case without the dash, as a cashier might.
      const paired = await pair(terminal.pairingCode.toLowerCase().replace('-', ' '));
      assert.equal(paired.status, 200, JSON.stringify(paired.body));
      assert.match(paired.body.token, /^[0-9a-f]{64}$/);
      assert.deepEqual(paired.body.terminal, { id: terminal.id, name: 'Front counter', mode: 'test', merchant: { name: 'Mama Put Kitchen', handle: merchant.handle } });
      assert.equal((await context(paired.body.token)).body.terminal?.id, terminal.id);
      assert.equal((await context(terminal.token)).status, 401, 'the token shown at creation stops working');

      const again = await pair(terminal.pairingCode);
      assert.deepEqual([again.status, again.body.code], [409, 'pairing_code_used']);
    });

    it('issues a fresh code on request (the older one stops working), not for another merchant\'s or a revoked terminal', async () => {
      const { key, terminal } = await merchantWithTerminal();
      const fresh = await server().request<{ terminalId: string; pairingCode: string; pairingExpiresAt: string; pairingQr: string }>('POST', `/api/merchant/terminals/${terminal.id}/pairing-code`, { headers: key });
      assert.equal(fresh.status, 201, JSON.stringify(fresh.body));
      assert.equal(fresh.body.terminalId, terminal.id);
      assert.notEqual(fresh.body.pairingCode, terminal.pairingCode);
      assert.deepEqual([(await pair(terminal.pairingCode)).status, (await pair(terminal.pairingCode)).body.code], [404, 'pairing_code_not_found']);
      assert.equal((await pair(fresh.body.pairingCode)).status, 200);

      const other = await merchantWithTerminal();
      const foreign = await server().request<{ code: string }>('POST', `/api/merchant/terminals/${terminal.id}/pairing-code`, { headers: other.key });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'terminal_not_found']);
      const noKey = await server().request<{ code: string }>('POST', `/api/merchant/terminals/${terminal.id}/pairing-code`);
      assert.equal(noKey.status, 401);

      const next = await server().request<{ pairingCode: string }>('POST', `/api/merchant/terminals/${other.terminal.id}/pairing-code`, { headers: other.key });
      assert.equal((await server().request('DELETE', `/api/merchant/terminals/${other.terminal.id}`, { headers: other.key })).status, 200);
      assert.deepEqual([(await pair(next.body.pairingCode)).status], [404], 'a revoked terminal does not pair');
      const revoked = await server().request<{ code: string }>('POST', `/api/merchant/terminals/${other.terminal.id}/pairing-code`, { headers: other.key });
      assert.deepEqual([revoked.status, revoked.body.code], [409, 'terminal_revoked']);
    });

    it('refuses an expired code (410), a malformed one (400) and bad bodies with clear 4xx errors', async () => {
      const { terminal } = await merchantWithTerminal();
      offsetMs += 601_000;
      const expired = await pair(terminal.pairingCode);
      assert.deepEqual([expired.status, expired.body.code], [410, 'pairing_code_expired']);
      assert.equal(typeof expired.body.error, 'string');
      const malformed = await pair('12345');
      assert.deepEqual([malformed.status, malformed.body.code], [400, 'pairing_code_invalid']);
      for (const body of [{}, { code: 42 }, { code: '' }]) {
        const answer = await server().request<{ code: string }>('POST', '/api/terminals/pair', { body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.body.code, 'validation_failed');
      }
      // The clock moves past the miss window, so the next test starts unlocked.
      offsetMs += PAIRING_MISS_WINDOW_SECONDS * 1000;
    });

    it('lists each terminal with its waiting code\'s expiry (null once used, expired or revoked) and whether its kiosk is connected now', async () => {
      const { s, key, terminal } = await merchantWithTerminal();
      type Listed = { id: string; connected: boolean; pairingCodeExpiresAt: string | null };
      const listed = async (id: string) => (await s.request<{ data: Listed[] }>('GET', '/api/merchant/terminals', { headers: key })).body.data.find((entry) => entry.id === id)!;
      assert.deepEqual(await listed(terminal.id), { ...(await listed(terminal.id)), connected: false, pairingCodeExpiresAt: terminal.pairingExpiresAt });
      const paired = await pair(terminal.pairingCode);
      assert.equal(paired.status, 200);
      assert.equal((await listed(terminal.id)).pairingCodeExpiresAt, null, 'a used code is no longer waiting');

      const { socket } = await connectTerminal(s, `term.${paired.body.token}`);
      assert.equal((await listed(terminal.id)).connected, true);
      const closed = new Promise((resolve) => socket.once('disconnect', resolve));
      socket.disconnect();
      await closed;
      // The server learns of the end of the connection on its own time: asked until it has.
      for (let tries = 0; (await listed(terminal.id)).connected && tries < 500; tries += 1) await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await listed(terminal.id)).connected, false);

      const fresh = await s.request<{ pairingExpiresAt: string }>('POST', `/api/merchant/terminals/${terminal.id}/pairing-code`, { headers: key });
      assert.equal((await listed(terminal.id)).pairingCodeExpiresAt, fresh.body.pairingExpiresAt);
      offsetMs += 601_000;
      assert.equal((await listed(terminal.id)).pairingCodeExpiresAt, null, 'an expired code is no longer waiting');
      const other = await merchantWithTerminal();
      const revoked = await other.s.request<Listed>('DELETE', `/api/merchant/terminals/${other.terminal.id}`, { headers: other.key });
      assert.deepEqual([revoked.body.connected, revoked.body.pairingCodeExpiresAt], [false, null]);
      assert.equal((await other.s.request<{ data: Listed[] }>('GET', '/api/merchant/terminals', { headers: other.key })).body.data[0]?.pairingCodeExpiresAt, null);
      offsetMs += PAIRING_MISS_WINDOW_SECONDS * 1000;
    });

    it(`locks an IP out after ${PAIRING_MISSES_MAX} wrong codes until its window ends, even for a right code`, async () => {
      const { key, terminal } = await merchantWithTerminal();
      const wrong = terminal.pairingCode.startsWith('2') ? '3333-3333' : '2222-2222';
      for (let attempt = 0; attempt < PAIRING_MISSES_MAX; attempt += 1) assert.equal((await pair(wrong)).status, 404);
      const locked = await server().request<{ code: string }>('POST', '/api/terminals/pair', { body: { code: terminal.pairingCode } });
      assert.deepEqual([locked.status, locked.body.code], [429, 'pairing_locked']);
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      offsetMs += PAIRING_MISS_WINDOW_SECONDS * 1000 + 1000;
      // The window is over (and so is that code's life): a new code pairs.
      const fresh = await server().request<{ pairingCode: string }>('POST', `/api/merchant/terminals/${terminal.id}/pairing-code`, { headers: key });
      assert.equal((await pair(fresh.body.pairingCode)).status, 200);
    });
  });
}
