// `npm run bench:rails`: live payouts end to end through the four providers' local fakes
// (Paystack, Flutterwave, MTN MoMo, M-Pesa), all in this process, against a real server process
// on real PostgreSQL with the four providers configured at once. BENCH_PAYOUTS live POST /api/pay
// (each with its own Idempotency-Key), spread evenly over the providers, BENCH_CONCURRENCY in
// flight; 5% of each provider's go to its `no_answer` receiver: the fake holds the request past
// RAIL_TIMEOUT_MS, then pays, so the outcome is unknown to the server and the scheduler asks the
// provider (lookup) before any resend; a callback may get there first.
// Prints payouts per second from the first request to the last final status, as a ratio to
// pgbench's TPC-B-like tps measured on the same server in the same run, and p50 / p99 from the
// request to the final status. Exits non-zero only on a correctness failure: a payout paid twice
// (or not at all) at a fake, a payout not final within the ceiling or final but not completed,
// a ledger violation.
// Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_PAYOUTS (default 1000), BENCH_CONCURRENCY (requests in flight, default 16),
// BENCH_SECONDS (pgbench's run, default 15), BENCH_CLIENTS (pgbench clients, default 8),
// BENCH_DELAY_SCALE (the fakes' waits: settling ~1-2 s and the no_answer hold 30 s times this;
// default 0.05), BENCH_RAIL_TIMEOUT_MS (default 1000, shorter than the hold),
// BENCH_CEILING_SECONDS (how long after the last request every payout must be final, default 600).
// The server keeps its production rate limits; RATE_LIMIT_SCALE in the environment reaches it.
import { randomBytes, randomUUID } from 'node:crypto';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase, freePort } from '@tapline/sync-server/testing';
import { mobileMoneyScenario } from '../fakes/flutterwave/index.ts';
import { PROVIDERS, type ProviderUnderTest, type RunningFake, type ScenarioReceiver } from '../rails/providers.ts';
import { ADMIN_TOKEN, Client, expect, inBatches, percentile, processCpuSeconds, startServer, stopServer } from './harness.ts';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const payouts = Number(process.env.BENCH_PAYOUTS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const delayScale = Number(process.env.BENCH_DELAY_SCALE ?? 0.05);
const railTimeoutMs = Number(process.env.BENCH_RAIL_TIMEOUT_MS ?? 1000);
const ceilingSeconds = Number(process.env.BENCH_CEILING_SECONDS ?? 600);
const TIMEOUT_SHARE = 0.05;
/** Major units per payout (NGN, or KES for M-Pesa): above every fake's minimum once converted. */
const AMOUNT = 1000;
const FINAL = ['completed', 'failed', 'reversed'];

/**
 * Where each provider's payouts go. The route table sends one (rail, country) to one provider,
 * and Paystack's and Flutterwave's magic receivers are both Nigerian bank accounts, so
 * Flutterwave pays Ghana MTN mobile money here (its fake's own magic numbers for it).
 */
function receiversOf(provider: ProviderUnderTest): { success: ScenarioReceiver; no_answer: ScenarioReceiver } {
  if (provider.name === 'flutterwave') return { success: mobileMoneyScenario('success'), no_answer: mobileMoneyScenario('no_answer') };
  return { success: provider.scenarios.success, no_answer: provider.scenarios.no_answer };
}

interface Planned {
  provider: ProviderUnderTest;
  scenario: 'success' | 'no_answer';
}

/**
 * The payouts in sending order: round robin over the providers; each provider's 5% (the total
 * rounded, shared out as evenly as it goes) spread evenly over its own payouts.
 */
function plan(): Planned[] {
  const counts = PROVIDERS.map((_, index) => Math.floor(payouts / PROVIDERS.length) + (index < payouts % PROVIDERS.length ? 1 : 0));
  const timeouts = Math.round(payouts * TIMEOUT_SHARE);
  const timeoutsOf = PROVIDERS.map((_, index) => Math.floor(timeouts / PROVIDERS.length) + (index < timeouts % PROVIDERS.length ? 1 : 0));
  return Array.from({ length: payouts }, (_, index) => {
    const which = index % PROVIDERS.length;
    const nth = Math.floor(index / PROVIDERS.length);
    // Of the provider's n payouts, t time out: the nth does when floor(nth * t / n) steps up at it.
    const n = counts[which]!;
    const t = timeoutsOf[which]!;
    const late = Math.floor(((nth + 1) * t) / n) > Math.floor((nth * t) / n);
    return { provider: PROVIDERS[which]!, scenario: late ? 'no_answer' : 'success' };
  });
}

/**
 * The providers' callbacks the server answered, by HTTP status (a 429 never reaches an adapter),
 * and what the adapters made of the rest, by provider and verdict; from its /metrics.
 */
async function callbackAnswers(origin: URL): Promise<{ byStatus: Record<string, number>; byVerdict: Record<string, Record<string, number>> }> {
  const response = await fetch(new URL('/metrics', origin), { headers: { authorization: `Bearer admin.${ADMIN_TOKEN}` } });
  const byStatus: Record<string, number> = {};
  const byVerdict: Record<string, Record<string, number>> = {};
  for (const line of (await response.text()).split('\n')) {
    const answered = /^tapline_http_request_duration_seconds_count\{(.*)\} (\d+)/.exec(line);
    if (answered?.[1]?.includes('route="/api/rails/')) {
      const status = /status_code="(\d+)"/.exec(answered[1])?.[1] ?? '?';
      byStatus[status] = (byStatus[status] ?? 0) + Number(answered[2]);
    }
    const handled = /^tapline_rail_callbacks_total\{(.*)\} (\d+)/.exec(line);
    if (handled?.[1]) {
      const provider = /provider="([^"]*)"/.exec(handled[1])?.[1] ?? '?';
      const verdict = /verdict="([^"]*)"/.exec(handled[1])?.[1] ?? '?';
      (byVerdict[provider] ??= {})[verdict] = Number(handled[2]);
    }
  }
  return { byStatus, byVerdict };
}

async function main() {
  const planned = plan();
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  const fakes = new Map<string, RunningFake>();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let http: Client | undefined;
  const problems: string[] = [];
  try {
    console.log(
      `bench:rails on ${new URL(baseUrl).host}: ${payouts} live payouts over ${PROVIDERS.map((provider) => provider.name).join(', ')} (their fakes, delay scale ${delayScale}), ` +
        `${planned.filter((payout) => payout.scenario === 'no_answer').length} of them held past RAIL_TIMEOUT_MS=${railTimeoutMs}; ${concurrency} requests in flight; pgbench ${clients} clients for ${seconds} s`,
    );
    const baseline = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    console.log(`  pgbench TPC-B (-c ${clients} -j 2 -T ${seconds}, scale 1): ${baseline.toFixed(0)} tps`);

    // The fakes call back to the server's own address, known before it starts.
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const providerEnv: Record<string, string> = {};
    for (const provider of PROVIDERS) {
      const fake = await provider.start(publicBaseUrl, delayScale);
      fakes.set(provider.name, fake);
      Object.assign(providerEnv, fake.env);
    }
    const routes = PROVIDERS.flatMap((provider) => Object.values(receiversOf(provider)).map((receiver) => `${receiver.rail}:${receiver.toCode}=${provider.name}`));
    server = await startServer(appDb.url, {
      ...providerEnv,
      PORT: String(port),
      PUBLIC_BASE_URL: publicBaseUrl,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      RAIL_ROUTES: [...new Set(routes)].join(';'),
      RAIL_TIMEOUT_MS: String(railTimeoutMs),
      RAIL_POLL_MS: '1000',
      SCHEDULER_POLL_MS: '200',
    });
    http = new Client(server.origin);

    const admin = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
    const ready = await http.call<{ providers: string[] }>('GET', '/api/health/ready', {});
    expect([...ready.body.providers].sort().join() === PROVIDERS.map((provider) => provider.name).sort().join(), `the server has not every provider configured: ${JSON.stringify(ready.body)}`);
    const merchant = await http.call<{ id: string; handle: string; liveKey: string }>('POST', '/api/admin/merchants', admin, { name: 'Bench Rails', handle: 'bench_rails', country: 'NG', currency: 'NGN' });
    expect(merchant.status === 201, `create merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
    const raised = await http.call('PATCH', `/api/admin/merchants/${merchant.body.id}`, admin, { rateLimitMultiplier: 1000 });
    expect(raised.status === 200, `raise limits: ${raised.status}`);
    for (const currency of new Set(PROVIDERS.map((provider) => provider.payCurrency))) {
      const credited = await http.call('POST', `/api/admin/wallets/${merchant.body.handle.replace(/^@/, '')}/credit`, admin, { amount: 2 * AMOUNT * payouts, currency, mode: 'live' });
      expect(credited.status === 200, `credit the live ${currency} wallet: ${credited.status} ${JSON.stringify(credited.body)}`);
    }
    const key = { 'x-merchant-api-key': merchant.body.liveKey };

    // The payouts: when each request left, and which provider and scenario it was.
    const sent = new Map<string, { at: number; planned: Planned }>();
    const sentTo = new Map<string, number>();
    const refused = new Map<string, number>();
    const answerTimes: number[] = [];
    const serverCpuBefore = processCpuSeconds(server.child.pid!);
    const ownCpuBefore = process.cpuUsage();
    const began = Date.now();
    await inBatches(planned, concurrency, async (payout) => {
      const { rail, toCode, receiver } = receiversOf(payout.provider)[payout.scenario];
      const at = Date.now();
      const created = await http!.call<{ paymentId: string; status: string; code?: string }>('POST', '/api/pay', { ...key, 'idempotency-key': randomUUID() }, {
        fromCode: 'NG', toCode, rail, amount: AMOUNT, currency: payout.provider.payCurrency, receiver, receiverName: 'Ada Obi', senderName: 'Bench Rails',
      });
      answerTimes.push(Date.now() - at);
      if (created.status !== 201) {
        const label = `${created.status} ${created.body.code ?? ''}`.trim();
        refused.set(label, (refused.get(label) ?? 0) + 1);
        return;
      }
      sent.set(created.body.paymentId, { at, planned: payout });
      sentTo.set(payout.provider.name, (sentTo.get(payout.provider.name) ?? 0) + 1);
    });
    const requestsDone = Date.now();
    answerTimes.sort((a, b) => a - b);
    console.log(`  requests: ${sent.size} payouts accepted (201) in ${((requestsDone - began) / 1000).toFixed(1)} s, answered in p50 ${percentile(answerTimes, 50)} ms, p99 ${percentile(answerTimes, 99)} ms (the submit to the provider included)${refused.size ? `; refused: ${JSON.stringify(Object.fromEntries(refused))}` : ''}`);
    if (refused.size) problems.push(`${payouts - sent.size} POST /api/pay not accepted: ${JSON.stringify(Object.fromEntries(refused))}`);

    // Every payout to a final status, read from the payments table in bulk.
    const db = new PostgresDatabase({ connectionString: appDb.url, poolSize: 2 });
    try {
      let open = Number.POSITIVE_INFINITY;
      // The provider errors the scheduler is backing off on (cleared once a payout moves on): why a payout is slow.
      const stepErrors = new Map<string, number>();
      while (Date.now() - requestsDone < ceilingSeconds * 1000) {
        const [row] = await db.query<{ open: number }>("SELECT count(*)::int8 AS open FROM payments WHERE mode = 'live' AND status NOT IN ('completed', 'failed', 'reversed')");
        open = Number(row?.open ?? 0);
        const errors = await db.query<{ provider: string; error: string; n: number }>(
          "SELECT provider, left(last_step_error, 160) AS error, count(*)::int8 AS n FROM payments WHERE mode = 'live' AND last_step_error IS NOT NULL GROUP BY 1, 2",
        );
        for (const error of errors) {
          const label = `${error.provider}: ${error.error}`;
          stepErrors.set(label, Math.max(stepErrors.get(label) ?? 0, Number(error.n)));
        }
        if (open === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const serverCpu = processCpuSeconds(server.child.pid!) - serverCpuBefore;
      const ownCpuUsage = process.cpuUsage(ownCpuBefore);
      const ownCpu = (ownCpuUsage.user + ownCpuUsage.system) / 1e6;
      const rows = await db.query<{ id: string; status: string; provider: string | null; timeline: { status: string; at: string }[] | string; step_attempts: number }>(
        "SELECT id, status, provider, timeline, step_attempts FROM payments WHERE mode = 'live'",
      );
      const latencies: number[] = [];
      const latenciesOf = { success: [] as number[], no_answer: [] as number[] };
      const latenciesByProvider = new Map<string, number[]>(PROVIDERS.map((provider) => [provider.name, []]));
      const statuses = new Map<string, number>();
      let lastFinal = began;
      for (const row of rows) {
        statuses.set(row.status, (statuses.get(row.status) ?? 0) + 1);
        const mine = sent.get(row.id);
        if (!mine) continue;
        if (row.provider !== mine.planned.provider.name) problems.push(`${row.id} went to ${row.provider}, not ${mine.planned.provider.name}`);
        if (!FINAL.includes(row.status)) continue;
        const timeline = typeof row.timeline === 'string' ? (JSON.parse(row.timeline) as { status: string; at: string }[]) : row.timeline;
        const final = timeline.find((entry) => entry.status === row.status);
        if (!final) continue;
        const finalAt = Date.parse(final.at);
        lastFinal = Math.max(lastFinal, finalAt);
        latencies.push(finalAt - mine.at);
        latenciesOf[mine.planned.scenario].push(finalAt - mine.at);
        latenciesByProvider.get(mine.planned.provider.name)!.push(finalAt - mine.at);
      }
      console.log(`  final statuses: ${JSON.stringify(Object.fromEntries(statuses))}${open > 0 ? ` (${open} still open ${ceilingSeconds} s after the last request)` : ''}`);
      if (rows.length !== sent.size) problems.push(`${rows.length} live payments in the database, ${sent.size} accepted`);
      if (open > 0) problems.push(`${open} payouts not final ${ceilingSeconds} s after the last request`);
      const notCompleted = rows.length - (statuses.get('completed') ?? 0);
      if (notCompleted > 0) problems.push(`${notCompleted} payouts not completed: ${JSON.stringify(Object.fromEntries(statuses))}`);

      // Exactly once at the provider, where the money leaves. A moment past the last hold first, so
      // a late second payout would show.
      await new Promise((resolve) => setTimeout(resolve, Math.max(2_000, 30_000 * delayScale + railTimeoutMs)));
      for (const provider of PROVIDERS) {
        const fake = fakes.get(provider.name)!;
        const paid = fake.paidTimes();
        const twice = [...paid.entries()].filter(([, times]) => times !== 1);
        const expected = sentTo.get(provider.name) ?? 0;
        console.log(`  ${provider.name}: ${expected} payouts sent, ${paid.size} keys paid, ${twice.length} paid other than once; ${fake.transferRequests()} transfer requests received`);
        if (twice.length > 0) problems.push(`${provider.name} paid ${twice.length} keys other than once: ${JSON.stringify(twice.slice(0, 3))}`);
        if (paid.size !== expected) problems.push(`${provider.name} paid ${paid.size} keys for ${expected} payouts`);
      }

      const report = await checkLedger(db);
      if (report.violations.length > 0) problems.push(`ledger invariants broken: ${JSON.stringify(report.violations.slice(0, 3))}`);
      console.log(`  ledger check: ${report.transfers} transfers, ${report.violations.length} violations`);
      const { byStatus: answers, byVerdict } = await callbackAnswers(server.origin);
      console.log(`  provider callbacks answered (by HTTP status): ${JSON.stringify(answers)}; handled (by provider and verdict): ${JSON.stringify(byVerdict)}`);
      if (answers['429']) {
        console.log(`    ${answers['429']} refused by the per-IP rate limit (the 'other' group, ${Math.round(120 * Number(process.env.RATE_LIMIT_SCALE ?? 1))} a minute): those payouts waited for a poll; M-Pesa's status query answers by callback too`);
      }

      // The no_answer payouts' own timeouts are among them by design.
      for (const [error, count] of stepErrors) console.log(`  provider step error (up to ${count} payouts at once): ${error}`);
      latencies.sort((a, b) => a - b);
      for (const list of [...Object.values(latenciesOf), ...latenciesByProvider.values()]) list.sort((a, b) => a - b);
      const elapsed = (lastFinal - began) / 1000;
      const rate = latencies.length / elapsed;
      console.log(`  ${latencies.length} payouts final in ${elapsed.toFixed(1)} s from the first request (server process ${((serverCpu / elapsed) * 100).toFixed(0)}% of a core, this process: load and the four fakes ${((ownCpu / elapsed) * 100).toFixed(0)}%)`);
      for (const [scenario, list] of [...Object.entries(latenciesOf), ...latenciesByProvider.entries()]) {
        if (list.length) console.log(`    ${scenario}: ${list.length}, p50 ${percentile(list, 50).toFixed(0)} ms, p99 ${percentile(list, 99).toFixed(0)} ms, max ${(list.at(-1) ?? 0).toFixed(0)} ms`);
      }
      console.log('');
      console.log(`rails throughput: ${rate.toFixed(1)} payouts/s = ${(rate / baseline).toFixed(3)} x pgbench (${baseline.toFixed(0)} tps)`);
      console.log(`rails request to final status: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`);
    } finally {
      await db.close();
    }
  } finally {
    http?.close();
    await stopServer(server);
    for (const fake of fakes.values()) await fake.stop();
    await appDb.drop();
    await pgbenchDb.drop();
  }
  if (problems.length > 0) {
    console.error(`\nbench:rails FAILED:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('correctness: every payout completed, each paid exactly once at its provider, ledger clean  PASS');
  }
}

await main();
