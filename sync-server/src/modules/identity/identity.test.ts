import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../../testing/server.ts';

for (const target of await databaseTargets()) {
  describe(`Pay Identity on ${target.name}`, () => {
    const server = useTestServer(target);

    it('resolves a handle to the destinations given at provisioning, in the key\'s mode only', async () => {
      const merchant = await server().createMerchant();
      const handle = uniqueHandle('amara');
      const destinations = [
        { type: 'mobile_wallet', provider: 'mtn_momo', phone: '+233201234567', country: 'GH', currency: 'GHS', preferred: true },
        { type: 'bank_account', provider: 'GCB Bank', accountNumber: '1234567890123', country: 'GH', currency: 'GHS' },
      ];
      const created = await server().request('POST', '/api/admin/wallets', {
        headers: ADMIN,
        body: { handle, displayName: 'Amara Mensah', country: 'GH', currency: 'GHS', pin: '2468', preferredRail: 'mobile_money', destinations },
      });
      assert.equal(created.status, 201);
      const resolved = await server().request('GET', `/api/pay-identity/@${handle.toUpperCase()}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(resolved.status, 200);
      assert.deepEqual(resolved.body, { handle: `@${handle}`, displayName: 'Amara Mensah', country: 'GH', currency: 'GHS', preferredRail: 'mobile_money', destinations });
      const live = await server().request('GET', `/api/pay-identity/${handle}`, { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(live.status, 404);
      assert.equal((await server().request('GET', `/api/pay-identity/${handle}`)).status, 401);
      assert.equal((await server().request('GET', '/api/pay-identity/no_such_handle', { headers: { 'x-merchant-api-key': merchant.testKey } })).status, 404);
      assert.equal((await server().request('GET', '/api/pay-identity/x!', { headers: { 'x-merchant-api-key': merchant.testKey } })).status, 400);
    });

    it('answers the preferred destination\'s rail, else the first destination\'s, when the holder chose none', async () => {
      const merchant = await server().createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const handle = uniqueHandle('ngozi');
      const bank = { type: 'bank_account', provider: 'GTBank', accountNumber: '0123456789', country: 'NG', currency: 'NGN' };
      const momo = { type: 'mobile_wallet', provider: 'mtn_momo', phone: '+2348031234567', country: 'NG', currency: 'NGN' };
      const created = await server().request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle, country: 'NG', currency: 'NGN', pin: '2468', destinations: [bank, momo] } });
      assert.equal(created.status, 201);
      const first = await server().request('GET', `/api/pay-identity/${handle}`, { headers: key });
      assert.equal(first.body.preferredRail, 'bank_transfer');

      const session = await server().request('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
      const headers = { authorization: `Bearer wallet.${session.body.token}` };
      const marked = await server().request('PUT', '/api/wallet/destinations', { headers, body: { destinations: [bank, { ...momo, preferred: true }] } });
      assert.equal(marked.body.preferredRail, 'mobile_money');
      assert.equal((await server().request('GET', `/api/pay-identity/${handle}`, { headers: key })).body.preferredRail, 'mobile_money');
      // A rail the holder chose stands; clearing it falls back to the destinations again.
      const chosen = await server().request('PUT', '/api/wallet/destinations', { headers, body: { destinations: [bank, { ...momo, preferred: true }], preferredRail: 'bank_transfer' } });
      assert.equal(chosen.body.preferredRail, 'bank_transfer');
      const cleared = await server().request('PUT', '/api/wallet/destinations', { headers, body: { destinations: [momo, bank], preferredRail: null } });
      assert.equal(cleared.body.preferredRail, 'mobile_money');
      assert.equal((await server().request('GET', '/api/wallet/destinations', { headers })).body.preferredRail, 'mobile_money');
    });

    it('lets the holder replace destinations and the preferred rail on the wallet surface, validated', async () => {
      const merchant = await server().createMerchant();
      const handle = uniqueHandle('kofi');
      await server().createWallet({ handle, currency: 'KES', country: 'KE' });
      const session = await server().request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const headers = { authorization: `Bearer wallet.${session.body.token}` };
      const empty = await server().request('GET', '/api/wallet/destinations', { headers });
      assert.deepEqual(empty.body.destinations, []);
      const updated = await server().request('PUT', '/api/wallet/destinations', {
        headers,
        body: { preferredRail: 'mobile_money', destinations: [{ type: 'mobile_wallet', provider: 'mpesa', phone: '+254712345678', country: 'ke', currency: 'kes', preferred: true }] },
      });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body.destinations, [{ type: 'mobile_wallet', provider: 'mpesa', phone: '+254712345678', country: 'KE', currency: 'KES', preferred: true }]);
      assert.equal(updated.body.preferredRail, 'mobile_money');
      const resolved = await server().request('GET', `/api/pay-identity/${handle}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual(resolved.body.destinations, updated.body.destinations);
      for (const [body, code] of [
        [{ destinations: [{ type: 'mobile_wallet', provider: 'mpesa', phone: '+25471', country: 'KE', currency: 'KES' }] }, 'validation_failed'],
        [{ destinations: [{ type: 'mobile_wallet', provider: 'mpesa', phone: '+254000000000', country: 'KE', currency: 'KES' }] }, 'destinations_invalid'],
        [{ destinations: [{ type: 'bank_account', provider: 'KCB', country: 'KE', currency: 'KES' }] }, 'destinations_invalid'],
        [{ destinations: [{ type: 'bank_account', provider: 'KCB', accountNumber: '12345678', country: 'FR', currency: 'KES' }] }, 'country_not_supported'],
        [{ destinations: [], preferredRail: 'pigeon' }, 'validation_failed'],
      ] as const) {
        const refused = await server().request('PUT', '/api/wallet/destinations', { headers, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, code, JSON.stringify(body));
      }
      const cleared = await server().request('PUT', '/api/wallet/destinations', { headers, body: { destinations: [], preferredRail: null } });
      assert.deepEqual([cleared.body.destinations, cleared.body.preferredRail], [[], null]);
      assert.equal((await server().request('PUT', '/api/wallet/destinations', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { destinations: [] } })).status, 403);
    });
  });
}
