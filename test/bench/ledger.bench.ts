// `npm run bench:ledger`: transfers per second through transfer() on real PostgreSQL, as a ratio
// to pgbench's TPC-B-like tps measured on the same server in the same run.
//   (a) spread: random transfers among 1,000 wallets
//   (b) hot: every transfer credits ONE merchant account
// Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_SECONDS (default 15), BENCH_CLIENTS (default 8).
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { migrate } from '@tapline/sync-server/db/migrate';
import { systemAccount, walletAccount } from '@tapline/sync-server/ledger/accounts';
import { transfer } from '@tapline/sync-server/ledger/ledger';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase } from '@tapline/sync-server/testing';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const WALLETS = 1000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

type Wrapping = 'own' | 'caller';

async function timed(db: PostgresDatabase, label: string, wrapping: Wrapping, legsFor: (sequence: number) => { from: string; to: string }): Promise<number> {
  let sequence = 0;
  let done = 0;
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const id = `${label}_${wrapping}_${sequence++}`;
      const { from, to } = legsFor(sequence);
      const started = performance.now();
      const request = { id, mode: 'test' as const, kind: 'wallet_payment' as const, legs: [
        { account: walletAccount(from, 'NGN'), amount: -100 },
        { account: walletAccount(to, 'NGN'), amount: 100 },
      ] };
      // 'own': transfer() is the whole transaction (one statement, one round trip).
      // 'caller': transfer() inside a caller's BEGIN ... COMMIT, as a payment with state does.
      if (wrapping === 'own') await transfer(db, request);
      else await db.transaction((tx) => transfer(tx, request));
      latencies.push(performance.now() - started);
      done++;
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: clients }, worker));
  const tps = done / ((performance.now() - began) / 1000);
  latencies.sort((a, b) => a - b);
  console.log(`  ${label} (${wrapping === 'own' ? 'own transaction' : 'inside caller BEGIN/COMMIT'}): ${done} transfers, ${tps.toFixed(0)} tps, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`);
  return tps;
}

async function main() {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const ledgerDb = await createPostgresDatabase(baseUrl);
  const db = new PostgresDatabase({ connectionString: ledgerDb.url, poolSize: clients });
  try {
    console.log(`bench:ledger on ${new URL(baseUrl).host}, ${clients} clients, ${seconds} s per run`);
    const baseline = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    console.log(`  pgbench TPC-B (-c ${clients} -j 2 -T ${seconds}, scale 1): ${baseline.toFixed(0)} tps`);

    await migrate(db);
    // The hot account is a real merchant's wallet, so the ledger ranks it as one.
    await db.query(`INSERT INTO merchants (id, name, handle, country, currency, webhook_secret) VALUES ('mer_bench', 'Bench', 'bench', 'NG', 'NGN', 'x')`);
    await db.query(`INSERT INTO wallets (id, handle, mode, owner_type, merchant_id, country, currency) VALUES ('wal_bench_merchant', 'bench', 'test', 'merchant', 'mer_bench', 'NG', 'NGN')`);
    const wallets = Array.from({ length: WALLETS }, (_, index) => `wal_bench_${index}`);
    for (let index = 0; index < wallets.length; index += 100) {
      await Promise.all(
        wallets.slice(index, index + 100).map((wallet) =>
          db.transaction((tx) =>
            transfer(tx, { id: `fund_${wallet}`, mode: 'test', kind: 'wallet_credit', legs: [
              { account: systemAccount('funding', 'NGN'), amount: -1_000_000_000 },
              { account: walletAccount(wallet, 'NGN'), amount: 1_000_000_000 },
            ] }),
          ),
        ),
      );
    }
    const random = () => wallets[Math.floor(Math.random() * WALLETS)]!;
    const pair = () => {
      const from = random();
      let to = random();
      while (to === from) to = random();
      return { from, to };
    };
    const toMerchant = () => ({ from: random(), to: 'wal_bench_merchant' });
    const spread = await timed(db, 'spread', 'own', pair);
    const hot = await timed(db, 'hot', 'own', toMerchant);
    const spreadInCaller = await timed(db, 'spread', 'caller', pair);
    const hotInCaller = await timed(db, 'hot', 'caller', toMerchant);

    const report = await checkLedger(db);
    if (report.violations.length > 0) throw new Error(`ledger invariants broken after the bench: ${JSON.stringify(report.violations.slice(0, 3))}`);

    console.log('');
    console.log(`ledger (a) spread over ${WALLETS} wallets: ${(spread / baseline).toFixed(2)} x pgbench  (target >= 0.70); inside a caller's transaction ${(spreadInCaller / baseline).toFixed(2)} x`);
    console.log(`ledger (b) one hot merchant account:   ${(hot / baseline).toFixed(2)} x pgbench  (target >= 0.50); inside a caller's transaction ${(hotInCaller / baseline).toFixed(2)} x`);
    console.log(`ledger check after the bench: ${report.transfers} transfers, no violations`);
  } finally {
    await db.close();
    await ledgerDb.drop();
    await pgbenchDb.drop();
  }
}

await main();
