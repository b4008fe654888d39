// Backups that have been restored: a PostgreSQL cluster of our own archiving its WAL with
// pgBackRest, a full base backup, then the real server migrating it and taking payouts and POS
// sales over HTTP; a target time is recorded with the payments acknowledged by then, more
// payments follow, and the backup is restored to that time into a fresh data directory. The
// restored cluster must pass `npm run ledger:check` and hold every payment acknowledged before the
// target and none after it. docs/deploy.md gives the same configuration and restore steps to an
// operator. `npm run backup:pitr` runs it (run.ts); pitr.test.ts runs it in CI.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { type StartedServerProcess, freePort, startServerProcess } from '@tapline/sync-server/testing';
import { clusterTempDir, clusterUser, makeDir, postgresBinDir, run, seconds, waitFor } from './cluster.ts';

export interface PitrOptions {
  /** Payouts and POS sales acknowledged before the target (each). */
  before?: number;
  /** Payouts and POS sales made after the target (each): none may be restored. */
  after?: number;
  log?: (line: string) => void;
}

export interface PitrReport {
  target: string;
  acknowledgedBefore: { payments: number; posSales: number };
  acknowledgedAfter: { payments: number; posSales: number };
  restored: { payments: number; posSalesCompleted: number; ledgerTransfers: number };
  /** Counted on the original cluster at the target. */
  atTarget: { payments: number; posSalesCompleted: number; ledgerTransfers: number };
  ledgerCheck: { exitCode: number | null; output: string };
  /** Every rule the restored database broke: must stay empty. */
  problems: string[];
  seconds: { fullBackup: number; restore: number; recovery: number; total: number };
  backupInfo: string;
}

const STANZA = 'tapline';
const ADMIN_TOKEN = 'pitr-admin-token-0123456789abcdef';
const ADMIN = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
const SECRETS_KEY = 'b7e1'.repeat(16);
const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The cluster's postgresql.conf additions: WAL archived through pgBackRest, as docs/deploy.md sets it. */
function archivingSettings(port: number, socketDir: string, configFile: string): string {
  return [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    'wal_level = replica',
    'archive_mode = on',
    `archive_command = 'pgbackrest --config=${configFile} --stanza=${STANZA} archive-push %p'`,
    'max_wal_senders = 3',
    'fsync = on',
    '',
  ].join('\n');
}

export async function runPitr(options: PitrOptions = {}): Promise<PitrReport> {
  const log = options.log ?? (() => undefined);
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const user = clusterUser();
  const began = Date.now();
  const dir = await clusterTempDir('tapline-pitr-', user);
  const dataDir = join(dir, 'data');
  const restoredDir = join(dir, 'restored');
  const repoDir = makeDir(join(dir, 'repo'), user);
  makeDir(join(dir, 'log'), user);
  makeDir(join(dir, 'lock'), user);
  const configFile = join(dir, 'pgbackrest.conf');
  const port = await freePort();
  const restoredPort = await freePort();
  const clusters: string[] = [];
  let server: StartedServerProcess | undefined;
  const databases: PostgresDatabase[] = [];
  try {
    // 1. A fresh cluster archiving its WAL to a pgBackRest repository.
    await run(user, join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    await writeFile(configFile, [
      '[global]',
      `repo1-path=${repoDir}`,
      'repo1-retention-full=2',
      `log-path=${join(dir, 'log')}`,
      `lock-path=${join(dir, 'lock')}`,
      'log-level-console=warn',
      'log-level-file=info',
      'start-fast=y',
      'compress-type=lz4',
      'process-max=2',
      '',
      `[${STANZA}]`,
      `pg1-path=${dataDir}`,
      `pg1-port=${port}`,
      `pg1-socket-path=${dir}`,
      'pg1-user=postgres',
      '',
    ].join('\n'));
    await appendFile(join(dataDir, 'postgresql.conf'), archivingSettings(port, dir, configFile));
    await run(user, join(bin, 'pg_ctl'), ['-D', dataDir, '-l', join(dir, 'log', 'postgresql.log'), '-w', 'start']);
    clusters.push(dataDir);
    const pgbackrest = (args: string[]) => run(user, 'pgbackrest', [`--config=${configFile}`, `--stanza=${STANZA}`, ...args]);
    await pgbackrest(['stanza-create']);
    await pgbackrest(['check']);
    const backupStarted = Date.now();
    await pgbackrest(['--type=full', 'backup']);
    const fullBackupMs = Date.now() - backupStarted;
    log(`pitr: full backup of a fresh cluster on port ${port} in ${seconds(fullBackupMs)} s (WAL archived by pgBackRest to ${repoDir})`);

    // 2. The server migrates its database after the backup (so the restore replays the schema from WAL) and takes payments.
    const admin = new PostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, poolSize: 1 });
    databases.push(admin);
    await admin.query('CREATE DATABASE tapline');
    const databaseUrl = `postgres://postgres@127.0.0.1:${port}/tapline`;
    server = await startServerProcess({
      DATABASE_URL: databaseUrl, PORT: String(await freePort()), HOST: '127.0.0.1', ADMIN_TOKEN, SECRETS_KEY, LOG_LEVEL: 'warn', SANDBOX_STEP_MS: '200',
    });
    const url = server.url;
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown, expected = [200, 201]): Promise<Record<string, unknown>> => {
      const response = await fetch(url + path, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const parsed = (await response.json()) as Record<string, unknown>;
      if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
      return parsed;
    };
    const merchant = await call('POST', '/api/admin/merchants', ADMIN, { name: 'Restore Market', handle: 'restore_market', country: 'NG', currency: 'NGN' });
    const merchantId = String(merchant.id);
    const key = { 'x-merchant-api-key': String(merchant.testKey) };
    await call('POST', '/api/admin/wallets', ADMIN, { handle: 'restore_customer', country: 'NG', currency: 'NGN', pin: '1234' });
    await call('POST', '/api/admin/wallets/restore_customer/credit', ADMIN, { amount: 1_000_000, currency: 'NGN' });
    const tagId = String((await call('POST', '/api/wearables', key, { handle: 'restore_customer', tagType: 'ring', displayName: 'Ring' })).tagId);
    const before = await tradeAt(url, key, tagId, options.before ?? 15);

    // 3. The target: a time after every acknowledged payment so far, with what the database holds then.
    const db = new PostgresDatabase({ connectionString: databaseUrl, poolSize: 1 });
    databases.push(db);
    const counts = (database: PostgresDatabase) =>
      database.query<{ payments: number; pos: number; transfers: number }>(
        `SELECT (SELECT count(*) FROM payments WHERE merchant_id = $1)::int8 AS payments,
                (SELECT count(*) FROM pos_sessions WHERE merchant_id = $1 AND status = 'completed')::int8 AS pos,
                (SELECT count(*) FROM ledger_transfers)::int8 AS transfers`,
        [merchantId],
      );
    // The server settles sandbox payouts in the background: stop it first, so the counts at the target stay what is restored.
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server!.child.once('exit', resolve));
    const [atTargetRow] = await counts(db);
    const [{ target }] = (await db.query<{ target: string }>("SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS target")) as [{ target: string }];
    log(`pitr: target ${target}: ${before.payments.length} payouts and ${before.posSales.length} POS sales acknowledged`);
    // The first commit after the target must be strictly later than it.
    await waitFor('the clock to pass the target', async () => {
      const [row] = await db.query<{ later: boolean }>('SELECT clock_timestamp() > $1::timestamptz AS later', [target]);
      return row?.later === true;
    }, 5_000, 5);

    // 4. More trade after the target: none of it may come back.
    server = await startServerProcess({
      DATABASE_URL: databaseUrl, PORT: String(await freePort()), HOST: '127.0.0.1', ADMIN_TOKEN, SECRETS_KEY, LOG_LEVEL: 'warn', SANDBOX_STEP_MS: '200',
    });
    const afterTarget = await tradeAt(server.url, key, tagId, options.after ?? 5);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server!.child.once('exit', resolve));
    server = undefined;
    // The WAL holding it is archived (check switches to a new segment and waits for it), then the cluster is lost.
    await pgbackrest(['check']);
    await db.close();
    await admin.close();
    databases.length = 0;
    await run(user, join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    clusters.splice(clusters.indexOf(dataDir), 1);
    log(`pitr: ${afterTarget.payments.length} payouts and ${afterTarget.posSales.length} POS sales after the target; the cluster stopped (immediate)`);

    // 5. Restore to the target into a fresh data directory, start it, wait for the promotion.
    makeDir(restoredDir, user);
    const restoreStarted = Date.now();
    await pgbackrest([`--pg1-path=${restoredDir}`, '--type=time', `--target=${target}`, '--target-action=promote', 'restore']);
    const restoreMs = Date.now() - restoreStarted;
    const recoveryStarted = Date.now();
    await run(user, join(bin, 'pg_ctl'), ['-D', restoredDir, '-l', join(dir, 'log', 'restored.log'), '-o', `-p ${restoredPort}`, '-w', 'start']);
    clusters.push(restoredDir);
    const restoredUrl = `postgres://postgres@127.0.0.1:${restoredPort}/tapline`;
    const restored = new PostgresDatabase({ connectionString: restoredUrl, poolSize: 1 });
    databases.push(restored);
    await waitFor('the restored cluster to finish recovery and promote', async () => {
      const [row] = await restored.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
      return row?.recovering === false;
    }, 120_000);
    const recoveryMs = Date.now() - recoveryStarted;
    log(`pitr: restored in ${seconds(restoreMs)} s, recovered to the target and promoted in ${seconds(recoveryMs)} s (port ${restoredPort})`);

    // 6. What the restored database holds.
    const problems: string[] = [];
    const ledgerCheck = await npmLedgerCheck(restoredUrl);
    if (ledgerCheck.exitCode !== 0) problems.push(`ledger:check exited ${ledgerCheck.exitCode}: ${ledgerCheck.output}`);
    const paymentIds = new Set((await restored.query<{ id: string }>('SELECT id FROM payments WHERE merchant_id = $1', [merchantId])).map((row) => row.id));
    const completed = new Set((await restored.query<{ id: string }>("SELECT id::text FROM pos_sessions WHERE merchant_id = $1 AND status = 'completed'", [merchantId])).map((row) => row.id));
    const anySession = new Set((await restored.query<{ id: string }>('SELECT id::text FROM pos_sessions WHERE merchant_id = $1', [merchantId])).map((row) => row.id));
    for (const id of before.payments) if (!paymentIds.has(id)) problems.push(`payment ${id}, acknowledged before the target, is missing`);
    for (const id of before.posSales) if (!completed.has(id)) problems.push(`POS sale ${id}, acknowledged before the target, is not completed`);
    for (const id of afterTarget.payments) if (paymentIds.has(id)) problems.push(`payment ${id}, made after the target, was restored`);
    for (const id of afterTarget.posSales) if (anySession.has(id)) problems.push(`POS session ${id}, made after the target, was restored`);
    const [restoredRow] = await counts(restored);
    const atTarget = { payments: atTargetRow!.payments, posSalesCompleted: atTargetRow!.pos, ledgerTransfers: atTargetRow!.transfers };
    const restoredCounts = { payments: restoredRow!.payments, posSalesCompleted: restoredRow!.pos, ledgerTransfers: restoredRow!.transfers };
    if (JSON.stringify(atTarget) !== JSON.stringify(restoredCounts)) problems.push(`at the target ${JSON.stringify(atTarget)}, restored ${JSON.stringify(restoredCounts)}`);
    if (restoredCounts.payments !== before.payments.length) problems.push(`${restoredCounts.payments} payments restored for ${before.payments.length} acknowledged before the target`);
    const info = await run(user, 'pgbackrest', [`--config=${configFile}`, `--stanza=${STANZA}`, 'info']);
    return {
      target,
      acknowledgedBefore: { payments: before.payments.length, posSales: before.posSales.length },
      acknowledgedAfter: { payments: afterTarget.payments.length, posSales: afterTarget.posSales.length },
      restored: restoredCounts,
      atTarget,
      ledgerCheck,
      problems,
      seconds: { fullBackup: seconds(fullBackupMs), restore: seconds(restoreMs), recovery: seconds(recoveryMs), total: seconds(Date.now() - began) },
      backupInfo: info.output.trim(),
    };
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    for (const database of databases) await database.close().catch(() => undefined);
    for (const cluster of clusters) await run(user, join(bin, 'pg_ctl'), ['-D', cluster, '-m', 'immediate', '-w', 'stop'], { allowFailure: true });
    await rm(dir, { recursive: true, force: true });
  }
}

/** Payouts and POS sales through one server, each acknowledged. */
async function tradeAt(url: string, key: Record<string, string>, tagId: string, count: number): Promise<{ payments: string[]; posSales: string[] }> {
  const call = async (method: string, path: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(url + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const parsed = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const payments: string[] = [];
  const posSales: string[] = [];
  for (let index = 0; index < count; index++) {
    payments.push(String((await call('POST', '/api/pay', { ...key, 'idempotency-key': randomUUID() }, PAYMENT)).paymentId));
    const session = await call('POST', '/api/pos/sessions', { ...key, 'idempotency-key': randomUUID() }, { amount: 1.5, currency: 'NGN', description: 'after the target' });
    const tapped = await call('POST', `/api/pos/sessions/${String(session.sessionId)}/tap`, key, { tagId });
    if (tapped.status !== 'completed') throw new Error(`POS tap answered ${JSON.stringify(tapped)}`);
    posSales.push(String(session.sessionId));
  }
  return { payments, posSales };
}

/** `npm run ledger:check` against the restored cluster, as an operator runs it. */
function npmLedgerCheck(databaseUrl: string): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'ledger:check'], { cwd: repositoryRoot, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve({ exitCode, output: output.trim() }));
  });
}

