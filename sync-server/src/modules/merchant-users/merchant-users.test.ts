import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, ManualClock, type TestServer, WebhookReceiver, useTestServer } from '../../testing/index.ts';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A browser-like client of the dashboard: keeps the session cookie and the CSRF token. */
class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(private readonly server: () => TestServer) {}

  async call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (options.csrf !== false && this.csrf && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.server().baseUrl + path, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async signIn(email: string, password: string, totpCode?: string): Promise<Answer> {
    const answer = await this.call('POST', '/api/dashboard/sessions', { body: { email, password, ...(totpCode ? { totpCode } : {}) } });
    if (answer.status === 201) this.csrf = String(answer.body.csrfToken);
    return answer;
  }
}

const PASSWORD = 'correct horse battery';

function tokenOf(url: unknown): string {
  const match = /\/dashboard\/#\/setup\/([0-9a-f]{64})$/.exec(String(url));
  assert.ok(match, `a set-up link: ${String(url)}`);
  return match[1]!;
}

let emailCounter = 0;
function uniqueEmail(prefix: string): string {
  emailCounter += 1;
  return `${prefix}.${process.pid}.${emailCounter}@Example.com`;
}

for (const target of await databaseTargets()) {
  describe(`dashboard users and sessions on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-25T09:00:00Z'));
    const server = useTestServer(target, { now: clock.now });

    /** A merchant with an owner who has set a password and signed in. */
    async function ownerSession() {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const email = uniqueEmail('owner');
      const setup = await request('POST', `/api/admin/merchants/${merchant.id}/owner`, { headers: ADMIN, body: { email } });
      assert.equal(setup.status, 201);
      const accepted = await request('POST', '/api/dashboard/links/accept', { body: { token: tokenOf(setup.body.setupUrl), password: PASSWORD } });
      assert.equal(accepted.status, 200);
      assert.deepEqual(accepted.body, { email: email.toLowerCase(), role: 'owner' });
      const browser = new Browser(server);
      const signedIn = await browser.signIn(email, PASSWORD);
      assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
      return { merchant, email: email.toLowerCase(), browser, signedIn };
    }

    async function member(owner: Browser, role: 'manager' | 'viewer' | 'owner') {
      const email = uniqueEmail(role);
      const invited = await owner.call('POST', '/api/merchant/users', { body: { email, role } });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      assert.equal(invited.body.status, 'invited');
      const accepted = await server().request('POST', '/api/dashboard/links/accept', { body: { token: tokenOf(invited.body.inviteUrl), password: PASSWORD } });
      assert.equal(accepted.status, 200);
      const browser = new Browser(server);
      assert.equal((await browser.signIn(email, PASSWORD)).status, 201);
      return { browser, id: String(invited.body.id), email: email.toLowerCase() };
    }

    it('provisions an owner through a one-time link, signs in with a hardened cookie and stores only hashes', async () => {
      const { merchant, email, browser, signedIn } = await ownerSession();
      const cookie = signedIn.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^tapline_session=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
      assert.doesNotMatch(cookie, /Secure/, 'plain HTTP: no Secure flag');
      assert.equal((signedIn.body.user as { email: string; role: string }).email, email);
      assert.equal((signedIn.body.user as { role: string }).role, 'owner');
      assert.deepEqual(signedIn.body.merchant, { id: merchant.id, name: 'Test Shop', handle: merchant.handle, currency: 'NGN' });
      assert.equal(signedIn.body.mode, 'test');
      assert.match(String(signedIn.body.csrfToken), /^[0-9a-f]{64}$/);
      assert.equal(signedIn.body.expiresAt, '2026-11-25T21:00:00.000Z');
      const token = browser.cookie!.split('=')[1]!;
      const stored = await server().db.query<{ token_hash: string }>('SELECT token_hash FROM merchant_user_sessions');
      assert.ok(stored.length > 0 && stored.every((row) => row.token_hash !== token && /^[0-9a-f]{64}$/.test(row.token_hash)));
      const users = await server().db.query<{ password_hash: string }>('SELECT password_hash FROM merchant_users WHERE email = $1', [email]);
      assert.match(users[0]!.password_hash, /^scrypt\$16384\$8\$1\$/);
      const session = await browser.call('GET', '/api/dashboard/session');
      assert.equal(session.status, 200);
      assert.equal(session.body.csrfToken, signedIn.body.csrfToken);
    });

    it('answers the same /api as a key, in the mode the switch names, and never another merchant\'s data', async () => {
      const { browser } = await ownerSession();
      const test = await browser.call('GET', '/api/merchant/balance');
      assert.equal(test.status, 200);
      assert.deepEqual((test.body.balances as unknown[])[0], { currency: 'NGN', available: 1_000_000 });
      const live = await browser.call('GET', '/api/merchant/balance', { headers: { 'x-tapline-mode': 'live' } });
      assert.deepEqual((live.body.balances as unknown[])[0], { currency: 'NGN', available: 0 });
      const badMode = await browser.call('GET', '/api/merchant/balance', { headers: { 'x-tapline-mode': 'prod' } });
      assert.equal(badMode.status, 400);
      assert.equal(badMode.body.code, 'invalid_mode');

      const created = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'Front' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.mode, 'test');
      const liveList = await browser.call('GET', '/api/merchant/terminals', { headers: { 'x-tapline-mode': 'live' } });
      assert.equal(liveList.body.total, 0);
      const liveRevoke = await browser.call('DELETE', `/api/merchant/terminals/${String(created.body.id)}`, { headers: { 'x-tapline-mode': 'live' } });
      assert.equal(liveRevoke.status, 404);

      const other = await server().createMerchant();
      const theirs = await server().request('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': other.testKey }, body: { name: 'Theirs' } });
      assert.equal(theirs.status, 201);
      const mine = await browser.call('GET', '/api/merchant/terminals');
      assert.deepEqual((mine.body.data as { name: string }[]).map((row) => row.name), ['Front']);
      const revokeTheirs = await browser.call('DELETE', `/api/merchant/terminals/${String(theirs.body.id)}`);
      assert.equal(revokeTheirs.status, 404);
      // A key header wins over the cookie and needs no CSRF token.
      const withKey = await browser.call('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': other.testKey }, body: { name: 'By key' }, csrf: false });
      assert.equal(withKey.status, 201);
      const theirList = await server().request('GET', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': other.testKey } });
      assert.equal(theirList.body.total, 2);
    });

    it('refuses a state-changing call without the CSRF token, from another origin or another site', async () => {
      const { browser } = await ownerSession();
      const noToken = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'x' }, csrf: false });
      assert.equal(noToken.status, 403);
      assert.equal(noToken.body.code, 'csrf_failed');
      const wrongToken = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'x' }, csrf: false, headers: { 'x-csrf-token': 'f'.repeat(64) } });
      assert.equal(wrongToken.body.code, 'csrf_failed');
      const crossOrigin = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'x' }, headers: { origin: 'https://evil.example' } });
      assert.equal(crossOrigin.status, 403);
      assert.equal(crossOrigin.body.code, 'csrf_failed');
      const crossSite = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'x' }, headers: { 'sec-fetch-site': 'cross-site' } });
      assert.equal(crossSite.body.code, 'csrf_failed');
      const sameOrigin = await browser.call('POST', '/api/merchant/terminals', { body: { name: 'ok' }, headers: { origin: server().baseUrl, 'sec-fetch-site': 'same-origin' } });
      assert.equal(sameOrigin.status, 201);
      const list = await browser.call('GET', '/api/merchant/terminals');
      assert.equal(list.body.total, 1, 'only the same-origin call created a terminal');
    });

    it('locks an account after five failed sign-ins for 15 minutes, on the injected clock', async () => {
      const { email } = await ownerSession();
      const browser = new Browser(server);
      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await browser.signIn(email, 'not the password');
        assert.equal(wrong.status, 401, `attempt ${attempt}`);
        assert.equal(wrong.body.code, 'invalid_credentials');
      }
      const locked = await browser.signIn(email, PASSWORD);
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'sign_in_locked');
      assert.equal(locked.headers.get('retry-after'), '900');
      const unknown = await browser.signIn('nobody@example.com', PASSWORD);
      assert.equal(unknown.status, 401);
      assert.equal(unknown.body.code, 'invalid_credentials');
      clock.advance(15 * 60_000);
      assert.equal((await browser.signIn(email, PASSWORD)).status, 201);
    });

    it('ends a session after 30 idle minutes and 12 hours after sign-in', async () => {
      const { browser } = await ownerSession();
      clock.advance(29 * 60_000);
      assert.equal((await browser.call('GET', '/api/merchant/balance')).status, 200);
      clock.advance(30 * 60_000);
      const idle = await browser.call('GET', '/api/merchant/balance');
      assert.equal(idle.status, 401);
      assert.equal(idle.body.code, 'dashboard_session_expired');

      const { browser: busy } = await ownerSession();
      for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
        clock.advance(20 * 60_000);
        assert.equal((await busy.call('GET', '/api/merchant/balance')).status, 200, `after ${minutes + 20} minutes`);
      }
      clock.advance(20 * 60_000);
      const absolute = await busy.call('GET', '/api/merchant/balance');
      assert.equal(absolute.status, 401);
      assert.equal(absolute.body.code, 'dashboard_session_expired');
    });

    it('signs out one session, and everywhere', async () => {
      const { email, browser } = await ownerSession();
      const second = new Browser(server);
      assert.equal((await second.signIn(email, PASSWORD)).status, 201);
      const third = new Browser(server);
      assert.equal((await third.signIn(email, PASSWORD)).status, 201);
      const oldCookie = browser.cookie!;
      const out = await browser.call('DELETE', '/api/dashboard/session');
      assert.equal(out.status, 204);
      assert.match(out.headers.get('set-cookie') ?? '', /^tapline_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
      const replayed = await server().request('GET', '/api/merchant/balance', { headers: { cookie: oldCookie } });
      assert.equal(replayed.status, 401);
      assert.equal(replayed.body.code, 'invalid_session');
      assert.equal((await second.call('GET', '/api/merchant/balance')).status, 200);
      const everywhere = await second.call('POST', '/api/dashboard/sessions/revoke-all');
      assert.equal(everywhere.status, 200);
      assert.deepEqual(everywhere.body, { revoked: 2 });
      assert.equal((await third.call('GET', '/api/merchant/balance')).body.code, 'invalid_session');
    });

    it('asks for a TOTP code once enabled, and never accepts one code twice', async () => {
      const { email, browser } = await ownerSession();
      const enrol = await browser.call('POST', '/api/dashboard/totp');
      assert.equal(enrol.status, 200);
      assert.match(String(enrol.body.otpauthUri), /^otpauth:\/\/totp\/Tapline:/);
      assert.match(String(enrol.body.qrPng), /^data:image\/png;base64,/);
      const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(String(enrol.body.secret)) });
      const wrongConfirm = await browser.call('POST', '/api/dashboard/totp/confirm', { body: { code: totp.generate({ timestamp: clock.now().getTime() - 10 * 60_000 }) } });
      assert.equal(wrongConfirm.status, 400);
      assert.equal(wrongConfirm.body.code, 'invalid_totp_code');
      const confirmed = await browser.call('POST', '/api/dashboard/totp/confirm', { body: { code: totp.generate({ timestamp: clock.now().getTime() }) } });
      assert.deepEqual(confirmed.body, { totpEnabled: true });
      const sealed = await server().db.query<{ totp_secret_sealed: string }>('SELECT totp_secret_sealed FROM merchant_users WHERE email = $1', [email]);
      assert.ok(sealed[0]!.totp_secret_sealed.startsWith('sealed.') && !sealed[0]!.totp_secret_sealed.includes(String(enrol.body.secret)));

      const next = new Browser(server);
      const needsCode = await next.signIn(email, PASSWORD);
      assert.equal(needsCode.status, 401);
      assert.equal(needsCode.body.code, 'totp_required');
      clock.advance(30_000);
      const code = totp.generate({ timestamp: clock.now().getTime() });
      assert.equal((await next.signIn(email, PASSWORD, code)).status, 201);
      const replay = await new Browser(server).signIn(email, PASSWORD, code);
      assert.equal(replay.status, 401);
      assert.equal(replay.body.code, 'invalid_totp_code');
      clock.advance(30_000);
      const off = await next.call('POST', '/api/dashboard/totp/disable', { body: { code: totp.generate({ timestamp: clock.now().getTime() }) } });
      assert.deepEqual(off.body, { totpEnabled: false });
      assert.equal((await new Browser(server).signIn(email, PASSWORD)).status, 201);
    });

    it('limits managers (no keys, no team) and viewers (read-only) on the server', async () => {
      const { browser: owner, merchant } = await ownerSession();
      const { browser: manager } = await member(owner, 'manager');
      const { browser: viewer } = await member(owner, 'viewer');

      assert.equal((await manager.call('POST', '/api/merchant/terminals', { body: { name: 'By manager' } })).status, 201);
      const settings = await manager.call('PATCH', '/api/merchant/settings', { body: { webhookUrl: 'http://127.0.0.1:9/hook' } });
      assert.equal(settings.status, 200);
      assert.deepEqual((await viewer.call('GET', '/api/merchant/settings')).body, { webhookUrl: 'http://127.0.0.1:9/hook' });
      for (const [method, path, body] of [
        ['GET', '/api/merchant/keys', undefined],
        ['GET', '/api/merchant/users', undefined],
        ['POST', '/api/merchant/users', { email: uniqueEmail('x'), role: 'viewer' }],
        ['GET', '/api/merchant/publishable-keys', undefined],
        ['PATCH', '/api/merchant/settings', { rotateWebhookSecret: true }],
      ] as const) {
        const refused = await manager.call(method, path, body === undefined ? {} : { body });
        assert.equal(refused.status, 403, `${method} ${path}`);
        assert.equal(refused.body.code, 'role_forbidden', `${method} ${path}`);
      }

      const read = await viewer.call('GET', '/api/merchant/terminals');
      assert.equal(read.status, 200);
      assert.equal(read.body.total, 1);
      const write = await viewer.call('POST', '/api/merchant/terminals', { body: { name: 'By viewer' } });
      assert.equal(write.status, 403);
      assert.equal(write.body.code, 'role_forbidden');
      assert.equal((await viewer.call('GET', '/api/dashboard/session')).status, 200);
      assert.equal((await viewer.call('DELETE', '/api/dashboard/session')).status, 204, 'a viewer may sign out');

      // The owner sees and rotates keys by id; the calling-key route is not for sessions.
      const keys = await owner.call('GET', '/api/merchant/keys');
      assert.equal(keys.status, 200);
      assert.equal(keys.body.total, 1);
      const [key] = keys.body.data as { id: string; prefix: string; active: boolean; expiresAt: string | null }[];
      assert.equal(key!.prefix, merchant.testKey.slice(0, 12));
      assert.equal(key!.active, true);
      const calling = await owner.call('POST', '/api/merchant/keys/rotate', { body: { graceHours: 1 } });
      assert.equal(calling.status, 403);
      assert.equal(calling.body.code, 'session_has_no_key');
      const rotated = await owner.call('POST', `/api/merchant/keys/${key!.id}/rotate`, { body: { graceHours: 1 } });
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.match(String(rotated.body.key), /^mk_test_[0-9a-f]{64}$/);
      for (const apiKey of [merchant.testKey, String(rotated.body.key)]) {
        assert.equal((await server().request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': apiKey } })).status, 200);
      }
      const managerRotate = await manager.call('POST', `/api/merchant/keys/${key!.id}/rotate`, { body: { graceHours: 0 } });
      assert.equal(managerRotate.body.code, 'role_forbidden');
      const otherModeKey = await owner.call('POST', `/api/merchant/keys/${key!.id}/rotate`, { body: {}, headers: { 'x-tapline-mode': 'live' } });
      assert.equal(otherModeKey.status, 404);
      assert.equal(otherModeKey.body.code, 'api_key_not_found');
      const secret = await owner.call('PATCH', '/api/merchant/settings', { body: { rotateWebhookSecret: true } });
      assert.match(String(secret.body.webhookSecret), /^whsec_/);
    });

    it('manages the team: roles, removal, the last owner, links used once or expired, one merchant per address', async () => {
      const { browser: owner, email: ownerEmail } = await ownerSession();
      const { browser: manager, id: managerId, email: managerEmail } = await member(owner, 'manager');
      const team = await owner.call('GET', '/api/merchant/users');
      assert.deepEqual((team.body.data as { email: string; role: string; status: string }[]).map((row) => [row.email, row.role, row.status]), [
        [ownerEmail, 'owner', 'active'],
        [managerEmail, 'manager', 'active'],
      ]);
      const promoted = await owner.call('PATCH', `/api/merchant/users/${managerId}`, { body: { role: 'viewer' } });
      assert.equal(promoted.body.role, 'viewer');
      assert.equal((await manager.call('POST', '/api/merchant/terminals', { body: { name: 'x' } })).body.code, 'role_forbidden', 'the new role applies at once');
      const ownerId = (team.body.data as { id: string }[])[0]!.id;
      const demoteLast = await owner.call('PATCH', `/api/merchant/users/${ownerId}`, { body: { role: 'manager' } });
      assert.equal(demoteLast.status, 409);
      assert.equal(demoteLast.body.code, 'last_owner');
      assert.equal((await owner.call('DELETE', `/api/merchant/users/${ownerId}`)).body.code, 'last_owner');
      assert.equal((await owner.call('DELETE', `/api/merchant/users/${managerId}`)).status, 204);
      assert.equal((await manager.call('GET', '/api/merchant/balance')).body.code, 'invalid_session', 'a removed member is signed out');

      const taken = await owner.call('POST', '/api/merchant/users', { body: { email: ownerEmail, role: 'viewer' } });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.code, 'email_taken');
      const { email: elsewhere } = await ownerSession();
      assert.equal((await owner.call('POST', '/api/merchant/users', { body: { email: elsewhere, role: 'viewer' } })).body.code, 'email_taken');
      const badRole = await owner.call('POST', '/api/merchant/users', { body: { email: uniqueEmail('y'), role: 'admin' } });
      assert.equal(badRole.status, 400);
      assert.equal(badRole.body.code, 'validation_failed');

      const invite = await owner.call('POST', '/api/merchant/users', { body: { email: uniqueEmail('late'), role: 'viewer' } });
      const token = tokenOf(invite.body.inviteUrl);
      const shortPassword = await server().request('POST', '/api/dashboard/links/accept', { body: { token, password: 'short' } });
      assert.equal(shortPassword.status, 400);
      clock.advance(7 * 24 * 3600_000 + 1000);
      const expired = await server().request('POST', '/api/dashboard/links/accept', { body: { token, password: PASSWORD } });
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'link_expired');
      const unknown = await server().request('POST', '/api/dashboard/links/accept', { body: { token: 'a'.repeat(64), password: PASSWORD } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'link_not_found');
      const fresh = await ownerSession();
      const users = await fresh.browser.call('POST', '/api/merchant/users', { body: { email: uniqueEmail('once'), role: 'viewer' } });
      const once = tokenOf(users.body.inviteUrl);
      assert.equal((await server().request('POST', '/api/dashboard/links/accept', { body: { token: once, password: PASSWORD } })).status, 200);
      const twice = await server().request('POST', '/api/dashboard/links/accept', { body: { token: once, password: PASSWORD } });
      assert.equal(twice.status, 410);
      assert.equal(twice.body.code, 'link_used');
      const noMerchant = await server().request('POST', '/api/admin/merchants/mer_nope/owner', { headers: ADMIN, body: { email: uniqueEmail('z') } });
      assert.equal(noMerchant.status, 404);
      const notAdmin = await server().request('POST', `/api/admin/merchants/mer_nope/owner`, { body: { email: uniqueEmail('z') } });
      assert.equal(notAdmin.status, 401);
    });

    it('charts sales per day: a POS sale opened from the dashboard and paid by a tap', async () => {
      const { browser, merchant } = await ownerSession();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = `payer_${process.pid}_${Date.now() % 100000}`;
      await server().createWallet({ handle: payer, fund: 1000 });
      const tag = await server().request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201);
      const empty = await browser.call('GET', '/api/merchant/sales/daily?days=7');
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body.currencies, []);
      const sale = await browser.call('POST', '/api/pos/sessions', { body: { amount: 12.5, currency: 'NGN', description: 'Jollof' } });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      const paid = await server().request('POST', `/api/pos/sessions/${String(sale.body.sessionId)}/tap`, { headers: key, body: { tagId: tag.body.tagId } });
      assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
      const sales = await browser.call('GET', '/api/merchant/sales/daily?days=7');
      const [ngn] = sales.body.currencies as { currency: string; total: number; count: number; daily: { date: string; amount: number; count: number }[] }[];
      assert.equal(sales.body.days, 7);
      assert.equal(ngn!.currency, 'NGN');
      assert.equal(ngn!.total, 12.5);
      assert.equal(ngn!.count, 1);
      assert.equal(ngn!.daily.length, 7);
      assert.deepEqual(ngn!.daily.at(-1), { date: clock.now().toISOString().slice(0, 10), amount: 12.5, count: 1 });
      assert.equal(ngn!.daily.slice(0, 6).reduce((sum, day) => sum + day.amount, 0), 0);
      const live = await browser.call('GET', '/api/merchant/sales/daily?days=7', { headers: { 'x-tapline-mode': 'live' } });
      assert.deepEqual(live.body.currencies, []);
      const tooMany = await browser.call('GET', '/api/merchant/sales/daily?days=91');
      assert.equal(tooMany.status, 400);
    });

    it('sends a test event to the webhook URL and redelivers a failed delivery from a session', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const { browser } = await ownerSession();
        const noUrl = await browser.call('POST', '/api/merchant/webhooks/test');
        assert.equal(noUrl.status, 422);
        assert.equal(noUrl.body.code, 'webhook_url_missing');
        assert.equal((await browser.call('PATCH', '/api/merchant/settings', { body: { webhookUrl: receiver.url } })).status, 200);
        receiver.respond((count) => (count === 1 ? 500 : 200));
        const sent = await browser.call('POST', '/api/merchant/webhooks/test');
        assert.equal(sent.status, 202);
        assert.match(String(sent.body.eventId), /^evt_/);
        assert.equal(await server().context.events.runOnce(), 1);
        assert.equal(receiver.received.length, 1);
        assert.equal(receiver.bodies()[0]!.event, 'webhook.test');
        const listed = await browser.call('GET', '/api/merchant/webhook-deliveries');
        const [delivery] = listed.body.data as { id: string; eventId: string; state: string; attemptCount: number }[];
        assert.equal(delivery!.eventId, sent.body.eventId);
        assert.equal(delivery!.state, 'pending');
        assert.equal(delivery!.attemptCount, 1);
        const again = await browser.call('POST', `/api/merchant/webhook-deliveries/${delivery!.id}/redeliver`);
        assert.equal(again.status, 200);
        assert.equal(again.body.state, 'succeeded');
        assert.equal(again.body.attemptCount, 2);
        assert.equal(receiver.received.length, 2);
        const live = await browser.call('GET', '/api/merchant/webhook-deliveries', { headers: { 'x-tapline-mode': 'live' } });
        assert.equal(live.body.total, 0);
      } finally {
        await receiver.close();
      }
    });

    it('answers the owner\'s set-up link when the merchant is created with ownerEmail', async () => {
      const { request } = server();
      const email = uniqueEmail('created');
      const created = await request('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'Kiosk Ltd', handle: `kiosk_${process.pid}_${emailCounter}`, country: 'NG', currency: 'NGN', ownerEmail: email } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.ownerSetupExpiresAt, new Date(clock.now().getTime() + 7 * 24 * 3600_000).toISOString());
      assert.equal((await request('POST', '/api/dashboard/links/accept', { body: { token: tokenOf(created.body.ownerSetupUrl), password: PASSWORD } })).body.role, 'owner');
      const browser = new Browser(server);
      assert.equal((await browser.signIn(email, PASSWORD)).status, 201);
      const taken = await request('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'Again', handle: `again_${process.pid}_${emailCounter}`, country: 'NG', currency: 'NGN', ownerEmail: email } });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.code, 'email_taken');
      const notCreated = await request('GET', '/api/admin/merchants?limit=100', { headers: ADMIN });
      assert.ok(!(notCreated.body.data as { name: string }[]).some((merchant) => merchant.name === 'Again'), 'no merchant without its owner');
      const plain = await server().createMerchant();
      assert.equal((plain as Record<string, unknown>).ownerSetupUrl, undefined);
    });

    it('keeps API-key calls unaffected and refuses session-only routes to a key', async () => {
      const { merchant } = await ownerSession();
      const byKey = await server().request('GET', '/api/dashboard/session', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(byKey.status, 403);
      assert.equal(byKey.body.code, 'session_required');
      const keys = await server().request('GET', '/api/merchant/keys', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(keys.status, 200);
      const noCredential = await server().request('GET', '/api/merchant/keys');
      assert.equal(noCredential.status, 401);
    });
  });

  describe(`dashboard cookie behind an HTTPS proxy on ${target.name}`, () => {
    const server = useTestServer(target, { env: { TRUST_PROXY: '1' } });

    it('marks the cookie Secure when the proxy says the request came over HTTPS', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const email = uniqueEmail('secure');
      const setup = await request('POST', `/api/admin/merchants/${merchant.id}/owner`, { headers: ADMIN, body: { email } });
      await request('POST', '/api/dashboard/links/accept', { body: { token: tokenOf(setup.body.setupUrl), password: PASSWORD } });
      const signedIn = await fetch(`${server().baseUrl}/api/dashboard/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      assert.equal(signedIn.status, 201);
      assert.match(signedIn.headers.get('set-cookie') ?? '', /; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
      const token = /tapline_session=([0-9a-f]{64})/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
      const body = (await signedIn.json()) as { csrfToken: string };
      const sameOrigin = await fetch(`${server().baseUrl}/api/merchant/terminals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', cookie: `tapline_session=${token}`, 'x-csrf-token': body.csrfToken, origin: `https://${new URL(server().baseUrl).host}` },
        body: JSON.stringify({ name: 'Over HTTPS' }),
      });
      assert.equal(sameOrigin.status, 201);
    });
  });
}
