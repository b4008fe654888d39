import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Queryable } from '../../db/database.ts';
import { openDatabase } from '../../db/open.ts';
import { createPostgresDatabase, databaseTargets } from '../../testing/databases.ts';
import { startServerProcess } from '../../testing/server-process.ts';
import { ADMIN, TEST_ADMIN_TOKEN, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { HOUR, type IssuedCard, type Json, holder, issueCard, merchant, redeem, runJobs, testClock } from '../../testing/gift-cards.ts';

/**
 * The plaintext code is returned once and stored nowhere (CONTRACT.md): these tests run every
 * path that sees a code, then search every text and jsonb column of every table, every whole row,
 * and the server's own log output at its most verbose level, for every code issued.
 */


/** Every (table, column) of a text-like type in the public schema. */
async function textColumns(db: Queryable): Promise<{ table: string; column: string }[]> {
  return db.query<{ table: string; column: string }>(
    `SELECT c.table_name AS table, c.column_name AS column FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = 'public' AND c.data_type IN ('text', 'character varying', 'character', 'jsonb', 'json')
     ORDER BY 1, 2`,
  );
}

/** Where `needle` appears: in a text/jsonb column, or anywhere in a whole row rendered as text. */
async function occurrences(db: Queryable, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column } of await textColumns(db)) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM "${table}" WHERE strpos(lower("${column}"::text), lower($1)) > 0`, [needle]);
    if ((row?.n ?? 0) > 0) found.push(`${table}.${column}`);
  }
  const tables = await db.query<{ table: string }>(`SELECT table_name AS table FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
  for (const { table } of tables) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM "${table}" AS r WHERE strpos(lower(r::text), lower($1)) > 0`, [needle]);
    if ((row?.n ?? 0) > 0) found.push(`${table} (row)`);
  }
  return found;
}

async function assertCodesNowhere(db: Queryable, codes: readonly string[]): Promise<void> {
  assert.ok(codes.length > 0);
  for (const code of codes) {
    // The 64 hex characters alone (without the gc_ prefix) must not appear either.
    assert.deepEqual(await occurrences(db, code.slice(3)), [], `code ${code.slice(0, 10)}... found in the database`);
  }
  // The search does find what is there: each code's SHA-256 is in gift_cards.code_hash.
  const hash = createHash('sha256').update(codes[0]!).digest('hex');
  assert.deepEqual(await occurrences(db, hash), ['gift_cards.code_hash', 'gift_cards (row)']);
}

/** Every path that sees a code, on the given API. Returns the codes it issued. */
async function exercise(api: {
  request: TestServer['request'];
  merchant(): Promise<{ headers: Record<string, string>; handle: string }>;
  holder(): Promise<{ headers: Record<string, string>; handle: string }>;
  deliverAt: string;
}): Promise<string[]> {
  const codes: string[] = [];
  const shop = await api.merchant();
  const customer = await api.holder();
  const expectStatus = async (promise: Promise<{ status: number; body: unknown }>, status: number) => {
    const answer = await promise;
    assert.equal(answer.status, status, JSON.stringify(answer.body).slice(0, 300));
    return answer.body as Json;
  };
  const key = { ...shop.headers, 'idempotency-key': `secret-${uniqueHandle()}` };
  const single = (await expectStatus(api.request('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 50, currency: 'NGN', pinCode: '1234' } }), 201)) as IssuedCard;
  codes.push(single.code);
  await expectStatus(api.request('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 50, currency: 'NGN', pinCode: '1234' } }), 201);
  const scheduled = (await expectStatus(
    api.request('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 5, currency: 'NGN', deliverToHandle: customer.handle, deliverAt: api.deliverAt } }),
    201,
  )) as IssuedCard;
  codes.push(scheduled.code);
  const bulk = await expectStatus(api.request('POST', '/api/merchant/gift-cards/bulk', { headers: { ...shop.headers, 'idempotency-key': `bulk-${uniqueHandle()}` }, body: { count: 3, amount: 2, currency: 'NGN' } }), 201);
  codes.push(...(bulk.cards as IssuedCard[]).map((card) => card.code));
  const imported = await expectStatus(
    api.request('POST', '/api/merchant/gift-cards/import', { headers: { ...shop.headers, 'idempotency-key': `import-${uniqueHandle()}` }, body: { cards: [{ amount: 1, currency: 'NGN' }, { amount: -1, currency: 'NGN' }] } }),
    201,
  );
  codes.push(...(imported.issued as IssuedCard[]).map((card) => card.code));
  const program = await expectStatus(api.request('POST', '/api/merchant/gift-card-programs', { headers: shop.headers, body: { name: 'Staff' } }), 201);
  const programIssue = await expectStatus(
    api.request('POST', `/api/merchant/gift-card-programs/${String(program.id)}/issue`, {
      headers: { ...shop.headers, 'idempotency-key': `program-${uniqueHandle()}` },
      body: { employees: [{ handle: customer.handle, amount: 3, currency: 'NGN', externalRef: 'E1' }] },
    }),
    201,
  );
  codes.push(...(programIssue.issued as IssuedCard[]).map((card) => card.code));
  await expectStatus(api.request('POST', '/api/merchant/reward-rules', { headers: shop.headers, body: { name: 'Cashback', minSpend: 1, percent: 10, currency: 'NGN' } }), 201);
  const reward = await expectStatus(
    api.request('POST', '/api/merchant/rewards/evaluate', { headers: { ...shop.headers, 'idempotency-key': `reward-${uniqueHandle()}` }, body: { customerHandle: customer.handle, spendAmount: 100, currency: 'NGN' } }),
    201,
  );
  codes.push((reward.card as IssuedCard).code);
  const byHolder = (await expectStatus(api.request('POST', '/api/wallet/gift-cards', { headers: customer.headers, body: { amount: 1, currency: 'NGN' } }), 201)) as IssuedCard;
  codes.push(byHolder.code);

  // Verify by URL and by body, redeem with wrong and right PINs, with keys, in another currency.
  await expectStatus(api.request('GET', `/api/gift-cards/verify?code=${single.code}`), 200);
  await expectStatus(api.request('POST', '/api/gift-cards/verify', { body: { code: single.code } }), 200);
  await expectStatus(api.request('GET', `/api/gift-cards/verify?code=${single.code.toUpperCase()}&x=1`), 200);
  await expectStatus(redeemVia(api.request, customer.headers, { code: single.code, pinCode: '9999' }), 403);
  const redeemKey = { ...customer.headers, 'idempotency-key': `redeem-${uniqueHandle()}` };
  await expectStatus(redeemVia(api.request, redeemKey, { code: single.code, pinCode: '1234', redeemAmount: 10 }), 200);
  await expectStatus(redeemVia(api.request, redeemKey, { code: single.code, pinCode: '1234', redeemAmount: 10 }), 200);
  await expectStatus(redeemVia(api.request, customer.headers, { code: single.code, pinCode: '1234', redeemAmount: 20, targetCurrency: 'USD' }), 200);
  await expectStatus(redeemVia(api.request, shop.headers, { code: byHolder.code, redeemAmount: 0.001 }), 400);
  await expectStatus(redeemVia(api.request, customer.headers, { code: `${single.code}x` }), 400);
  await expectStatus(redeemVia(api.request, customer.headers, { code: (bulk.cards as IssuedCard[])[0]!.code }), 200);
  await expectStatus(redeemVia(api.request, customer.headers, { code: (bulk.cards as IssuedCard[])[0]!.code }), 409);
  await expectStatus(api.request('PATCH', `/api/admin/gift-cards/${(bulk.cards as IssuedCard[])[1]!.id}`, { headers: ADMIN, body: { action: 'refund' } }), 200);
  assert.equal(new Set(codes).size, codes.length);
  return codes;
}

/** Redeems on the merchant surface with a merchant key, else on the wallet surface. */
function redeemVia(request: TestServer['request'], headers: Record<string, string>, body: Json) {
  const surface = headers['x-merchant-api-key'] ? 'merchant' : 'wallet';
  return request('POST', `/api/${surface}/gift-cards/redeem`, { headers, body });
}

for (const target of await databaseTargets()) {
  describe(`gift card codes stay secret on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });

    it('never stores a code: every text and jsonb column of every table is searched for every code issued', async () => {
      const s = server();
      const codes = await exercise({
        request: s.request,
        merchant: () => merchant(s),
        holder: () => holder(s, { fund: 100 }),
        deliverAt: new Date(clock.now().getTime() + HOUR).toISOString(),
      });
      clock.advance(HOUR);
      assert.equal((await runJobs(s.context)).delivered, 1);
      // Codes issued outside exercise() too: a PIN-protected card and a locked one.
      const shop = await merchant(s);
      codes.push((await issueCard(s, shop.headers, { amount: 1, currency: 'NGN', pinCode: '5555', lockedToHandle: 'someone' })).code);
      const person = await holder(s);
      assert.equal((await redeem(s, person.headers, { code: codes.at(-1)! }, 'wallet')).status, 403);
      await assertCodesNowhere(s.db, codes);
    });

    it('never logs a code: the real server process at LOG_LEVEL=trace prints none, and its database holds none', async () => {
      let env: Record<string, string>;
      let dataDir: string | undefined;
      let drop: (() => Promise<void>) | undefined;
      let connectionString: string | undefined;
      if (target.name === 'postgres') {
        const created = await createPostgresDatabase();
        connectionString = created.url;
        drop = created.drop;
        env = { DATABASE_URL: created.url, LOG_LEVEL: 'trace' };
      } else {
        dataDir = mkdtempSync(join(tmpdir(), 'tapline-giftcard-logs-'));
        env = { DATA_DIR: dataDir, LOG_LEVEL: 'trace' };
      }
      try {
        const started = await startServerProcess({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env });
        const request: TestServer['request'] = async (method, path, options = {}) => {
          const headers: Record<string, string> = { ...options.headers };
          let body: string | undefined;
          if (options.body !== undefined) {
            body = JSON.stringify(options.body);
            headers['content-type'] = 'application/json';
          }
          const response = await fetch(started.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
          const text = await response.text();
          return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as never };
        };
        const codes = await exercise({
          request,
          async merchant() {
            const created = await request<{ testKey: string; handle: string }>('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'Log Shop', handle: uniqueHandle('logshop'), country: 'NG', currency: 'NGN' } });
            assert.equal(created.status, 201);
            return { headers: { 'x-merchant-api-key': created.body.testKey }, handle: created.body.handle };
          },
          async holder() {
            const handle = uniqueHandle('loguser');
            assert.equal((await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle, pin: '1234', country: 'NG', currency: 'NGN' } })).status, 201);
            assert.equal((await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: 100, currency: 'NGN' } })).status, 200);
            const session = await request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
            return { headers: { authorization: `Bearer wallet.${session.body.token}` }, handle };
          },
          deliverAt: new Date(Date.now() + 24 * HOUR).toISOString(),
        });
        const exited = new Promise((resolve) => started.child.once('exit', resolve));
        started.child.kill('SIGTERM');
        await exited;
        const logs = started.output();
        for (const code of codes) {
          assert.ok(!logs.toLowerCase().includes(code.slice(3)), `code ${code.slice(0, 10)}... appears in the server log`);
        }
        // The capture is real: request lines with URLs are there, the verify URL with its code cut out.
        assert.match(logs, /incoming request/);
        assert.match(logs, /"url":"\/api\/gift-cards\/verify\?code=\[redacted\]"/);
        assert.match(logs, /"url":"\/api\/gift-cards\/verify\?code=\[redacted\]&x=\[redacted\]"/);
        const db = await openDatabase(connectionString ? { databaseUrl: connectionString } : { dataDirectory: dataDir! });
        try {
          await assertCodesNowhere(db, codes);
        } finally {
          await db.close();
        }
      } finally {
        await drop?.();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
