// Wallet PIN lock-outs and wallet and agent sessions are set and judged by the app's clock (the one
// tests move), not the database's: these tests move a clock set four years ahead and never wait.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { MINUTE, testClock } from '../../testing/gift-cards.ts';

const HOUR = 60 * MINUTE;

for (const target of await databaseTargets()) {
  describe(`wallet lock-outs and sessions on the app's clock on ${target.name}`, () => {
    const clock = testClock('2030-06-01T08:00:00.000Z');
    const server = useTestServer(target, { now: clock.now, env: { SESSION_TTL_SECONDS: String(2 * 3600) } });

    it('locks a wallet for 15 minutes of the app\'s clock after 5 wrong PINs, with Retry-After by that clock', async () => {
      const { request, createWallet } = server();
      const handle = uniqueHandle('clockpin');
      await createWallet({ handle, pin: '482913' });
      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '000000' } });
        assert.deepEqual([wrong.status, wrong.body.code], [403, 'wrong_pin'], `attempt ${attempt}`);
      }
      const locked = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '482913' } });
      assert.deepEqual([locked.status, locked.body.code], [429, 'pin_attempts_exceeded']);
      assert.equal(locked.headers.get('retry-after'), '900');
      assert.match(String(locked.body.error), /locked until 2030-06-01T08:15:00/);
      clock.advance(14 * MINUTE);
      const still = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '482913' } });
      assert.deepEqual([still.status, still.headers.get('retry-after')], [429, '60']);
      clock.advance(MINUTE);
      const open = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '482913' } });
      assert.equal(open.status, 201, JSON.stringify(open.body));
    });

    it('ends a wallet session SESSION_TTL_SECONDS after sign-in by the app\'s clock', async () => {
      const { request, createWallet } = server();
      const handle = uniqueHandle('clocksess');
      await createWallet({ handle, pin: '482913' });
      const signedIn = await request<{ token: string; expiresAt: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '482913' } });
      assert.equal(signedIn.status, 201);
      assert.equal(signedIn.body.expiresAt, new Date(clock.now().getTime() + 2 * HOUR).toISOString());
      const auth = { authorization: `Bearer wallet.${signedIn.body.token}` };
      clock.advance(2 * HOUR - MINUTE);
      assert.equal((await request('GET', '/api/wallet/balance', { headers: auth })).status, 200);
      clock.advance(MINUTE);
      const expired = await request('GET', '/api/wallet/balance', { headers: auth });
      assert.deepEqual([expired.status, expired.body.code], [401, 'wallet_session_expired']);
    });

    it('ends an agent session the same way', async () => {
      const { request } = server();
      const created = await request<{ agentId: string; secret: string }>('POST', '/api/admin/agents', { headers: ADMIN, body: { name: 'Corner agent', handle: uniqueHandle('clockagent'), country: 'NG', currency: 'NGN' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const session = await request<{ token: string; expiresAt: string }>('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: created.body.secret } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      assert.equal(session.body.expiresAt, new Date(clock.now().getTime() + 2 * HOUR).toISOString());
      const auth = { authorization: `Bearer agent.${session.body.token}` };
      assert.equal((await request('GET', '/api/agent/balance', { headers: auth })).status, 200);
      clock.advance(2 * HOUR);
      const expired = await request('GET', '/api/agent/balance', { headers: auth });
      assert.deepEqual([expired.status, expired.body.code], [401, 'agent_session_expired']);
    });
  });
}
