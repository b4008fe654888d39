// test-lane: waiting (scripts/run-tests.mjs: mostly waits on restarts, held requests and expiries)
// A crash between asking the provider to pay and recording its answer: the server is SIGKILLed
// while the provider holds the request (no answer yet), started again, and the payment finishes
// with exactly one payout at the provider: the restarted scheduler asks what became of the
// payout before it would send it again. Per provider, on both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, databaseTargets, until } from '@tapline/sync-server/testing';
import { type ServerProcess, serverProcess } from '../e2e/server-process.ts';
import { PROVIDERS, type RunningFake } from './providers.ts';

/** no_answer holds a request 30 s × this (6 s): the server is killed while it waits. */
const DELAY_SCALE = 0.2;

/** Restarts under load are slow: a 180 s ceiling. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>) => until(what, probe, 180_000, 100);

for (const target of await databaseTargets()) {
  for (const provider of PROVIDERS) {
    describe(`a crash while ${provider.name} holds the payout, on ${target.name}`, () => {
      const scenario = provider.scenarios.no_answer;
      let server: ServerProcess;
      let fake: RunningFake | undefined;
      before(async () => {
        server = await serverProcess(target, (baseUrl) => ({
          ...fake?.env,
          PUBLIC_BASE_URL: baseUrl,
          RAIL_ROUTES: `${scenario.rail}:${scenario.toCode}=${provider.name}`,
          // A 1 s request timeout makes a claim's lease 10 s: the restarted scheduler takes over soon.
          RAIL_TIMEOUT_MS: '1000',
          RAIL_POLL_MS: '1000',
          SCHEDULER_POLL_MS: '200',
        }));
        fake = await provider.start(server.baseUrl, DELAY_SCALE);
        await server.start();
      });
      after(async () => {
        await server?.dispose();
        await fake?.stop();
      });

      it('pays exactly once after a SIGKILL between the request and its answer', async () => {
        const merchant = await server.createMerchant({ webhookUrl: 'https://example.com/hooks' });
        const credited = await server.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: provider.payCurrency, mode: 'live' } });
        assert.equal(credited.status, 200);
        // The fake holds the transfer request; the server is killed before any answer is recorded.
        const answer = server
          .request<{ paymentId: string; status: string }>('POST', '/api/pay', {
            headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
            body: { fromCode: 'NG', toCode: scenario.toCode, rail: scenario.rail, amount: 5000, currency: provider.payCurrency, receiver: scenario.receiver, receiverName: 'Ada Obi' },
          })
          .then(
            (response) => response,
            () => undefined,
          );
        // Killed while the provider holds the transfer request.
        await waitFor('the provider to receive the transfer', async () => (fake!.transferRequests() > 0 ? true : undefined));
        await server.stop('SIGKILL');
        await answer;
        await server.start();
        const payments = await waitFor('the payment to be final', async () => {
          const list = await server.request<{ data: { paymentId: string; status: string }[] }>('GET', '/api/payments', { headers: { 'x-merchant-api-key': merchant.liveKey } });
          const row = list.body.data[0];
          return row && row.status === 'completed' ? list.body.data : undefined;
        });
        assert.equal(payments.length, 1);
        assert.deepEqual([...fake!.paidTimes().values()], [1], 'one payout, paid once');
        // The ledger, read with the server stopped (one process at a time on an embedded database).
        assert.equal(await server.stop('SIGTERM'), 0);
        const db = await server.openDatabase();
        try {
          assert.deepEqual((await checkLedger(db)).violations, []);
        } finally {
          await db.close();
        }
      });
    });
  }
}
