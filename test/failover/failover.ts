// A database that survives losing its primary: etcd and two PostgreSQL nodes under Patroni with
// synchronous replication (synchronous_mode), HAProxy in front sending connections to whichever
// node Patroni's REST API says is the primary (GET /primary), and the chaos run's servers and
// clients (test/chaos) working through it. Under load the primary's postmaster is SIGKILLed
// (Patroni restarts it in place), then the whole primary node is killed, Patroni with it (the
// synchronous standby is promoted). Afterwards every acknowledged payout, POS sale and offline
// verdict is there exactly once (the chaos run's checks), and the time from each fault to the
// first operation acknowledged again is printed (RTO). `npm run chaos:failover` runs it (run.ts),
// failover.test.ts a short version.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { freePort } from '@tapline/sync-server/testing';
import { type ChaosReport, runChaos } from '../chaos/chaos.ts';
import { type OsUser, clusterTempDir, clusterUser, makeDir, postgresBinDir, run, seconds, sleep, startDaemon, waitFor } from '../backup/cluster.ts';

export interface FailoverOptions {
  /** Traffic; the two faults fall at a third and two thirds of it. */
  seconds: number;
  clients: number;
  /** Clients' retries after the traffic (see ChaosOptions.drainSeconds). */
  drainSeconds: number;
  /** Server instances (behind their own HAProxy when more than one). */
  instances: number;
  log?: (line: string) => void;
}

export interface FaultReport {
  fault: string;
  /** Seconds into the traffic. */
  at: number;
  /** From the fault until an operation started after it was acknowledged. */
  rtoSeconds: number | null;
  /** From the fault until a new connection through HAProxy reached a primary (out of recovery) again. */
  primaryAgainSeconds: number;
  primaryBefore: string;
  primaryAfter: string;
}

export interface FailoverReport {
  chaos: ChaosReport;
  faults: FaultReport[];
  /** Patroni's view at the end (GET /cluster on the surviving node). */
  cluster: { members: { name: string; role: string; state: string; timeline?: number }[] };
  timelines: { before: number; after: number };
  /** The failover's own checks (the chaos run's are in chaos.problems): must stay empty. */
  problems: string[];
}

interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  configFile: string;
  daemon?: { child: ChildProcess; output: () => string };
  killed: boolean;
}

interface ClusterMember {
  name: string;
  role: string;
  state: string;
  timeline?: number;
}

const SCOPE = 'tapline';

/** Patroni's configuration for one node (JSON, which is YAML), as docs/deploy.md gives it. */
function patroniConfig(node: PatroniNode, dir: string, etcdPort: number, bin: string): object {
  return {
    scope: SCOPE,
    namespace: '/service/',
    name: node.name,
    log: { level: 'WARNING' },
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${etcdPort}`] },
    bootstrap: {
      dcs: {
        // A short lease so the test's failover is quick; production keeps ttl 30, loop_wait 10.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 4,
        maximum_lag_on_failover: 1_048_576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: false,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            max_connections: 200,
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            synchronous_commit: 'on',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, 'data-checksums'],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: bin,
      pgpass: join(dir, `${node.name}.pgpass`),
      authentication: { superuser: { username: 'postgres' }, replication: { username: 'postgres' } },
      parameters: { unix_socket_directories: dir },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

/** HAProxy in TCP mode: one listener, the node whose Patroni answers 200 on /primary gets the connections. */
function haproxyConfig(port: number, nodes: PatroniNode[]): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    'listen postgres_primary',
    `  bind 127.0.0.1:${port}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} check port ${node.restPort}`),
    '',
  ].join('\n');
}

async function status(url: string): Promise<number> {
  return fetch(url, { signal: AbortSignal.timeout(1_000) }).then((response) => response.status, () => 0);
}

export async function runFailover(options: FailoverOptions): Promise<FailoverReport> {
  const log = options.log ?? (() => undefined);
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const user: OsUser = clusterUser();
  const dir = await clusterTempDir('tapline-ha-', user);
  const etcdPort = await freePort();
  const etcdPeerPort = await freePort();
  const haproxyPort = await freePort();
  const nodes: PatroniNode[] = [];
  for (const name of ['pg1', 'pg2']) {
    nodes.push({ name, pgPort: await freePort(), restPort: await freePort(), dataDir: join(dir, name), configFile: join(dir, `${name}.yml`), killed: false });
  }
  // Python's environment of the machine's own (pyenv) must not leak into Debian's Patroni.
  const daemonEnv = { HOME: dir, PYTHONPATH: '', PYTHONHOME: '', PYENV_VERSION: 'system', LC_ALL: 'C.UTF-8' };
  let etcd: ReturnType<typeof startDaemon> | undefined;
  let haproxy: ChildProcess | undefined;
  let haproxyOutput = '';
  const cleanup = async () => {
    haproxy?.kill('SIGKILL');
    for (const node of nodes) node.daemon?.child.kill('SIGKILL');
    for (const node of nodes) await run(user, join(bin, 'pg_ctl'), ['-D', node.dataDir, '-m', 'immediate', '-w', 'stop'], { allowFailure: true });
    etcd?.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // 1. etcd, one member: Patroni's leader lock and cluster state.
    makeDir(join(dir, 'etcd'), user);
    etcd = startDaemon(user, 'etcd', [
      '--name', 'tapline-etcd', '--data-dir', join(dir, 'etcd'),
      '--listen-client-urls', `http://127.0.0.1:${etcdPort}`, '--advertise-client-urls', `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${etcdPeerPort}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-cluster', `tapline-etcd=http://127.0.0.1:${etcdPeerPort}`, '--initial-cluster-state', 'new',
      '--log-level', 'warn',
    ], daemonEnv);
    await waitFor('etcd to answer', async () => (await status(`http://127.0.0.1:${etcdPort}/health`)) === 200, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}:\n${etcd?.output()}`);
    });

    // 2. Two Patroni nodes: the first bootstraps (initdb) and leads, the second clones it and becomes the synchronous standby.
    const startNode = async (node: PatroniNode) => {
      await writeFile(node.configFile, JSON.stringify(patroniConfig(node, dir, etcdPort, bin), null, 2));
      node.daemon = startDaemon(user, 'patroni', [node.configFile], daemonEnv);
    };
    const began = Date.now();
    await startNode(nodes[0]!);
    await waitFor(`${nodes[0]!.name} to lead`, async () => (await status(`http://127.0.0.1:${nodes[0]!.restPort}/primary`)) === 200, 120_000).catch((error: Error) => {
      throw new Error(`${error.message}:\n${nodes[0]!.daemon?.output()}`);
    });
    await startNode(nodes[1]!);
    const members = async (node: PatroniNode): Promise<ClusterMember[]> => {
      const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(1_000) });
      return ((await response.json()) as { members: ClusterMember[] }).members;
    };
    const alive = () => nodes.filter((node) => !node.killed);
    /** A synchronous standby streaming from the leader (Patroni's /cluster shows a sync_standby that is running). */
    const synchronous = async () => {
      for (const node of alive()) {
        const list = await members(node).catch(() => []);
        if (list.some((member) => member.role === 'sync_standby' && ['running', 'streaming'].includes(member.state))) return true;
      }
      return false;
    };
    await waitFor(`${nodes[1]!.name} to be the synchronous standby`, synchronous, 120_000).catch((error: Error) => {
      throw new Error(`${error.message}:\n${nodes[1]!.daemon?.output()}`);
    });
    const leader = async (): Promise<PatroniNode | undefined> => {
      for (const node of alive()) if ((await status(`http://127.0.0.1:${node.restPort}/primary`)) === 200) return node;
      return undefined;
    };
    const timeline = async () => {
      const current = await leader();
      const list = current ? await members(current) : [];
      return list.find((member) => member.role === 'leader')?.timeline ?? 0;
    };
    const timelineBefore = await timeline();
    log(`failover: etcd on ${etcdPort}, Patroni ${nodes.map((node) => `${node.name} (PostgreSQL ${node.pgPort}, REST ${node.restPort})`).join(' and ')}: leader and synchronous standby in ${seconds(Date.now() - began)} s`);

    // 3. HAProxy in front: the servers' DATABASE_URL.
    const haproxyFile = join(dir, 'haproxy.cfg');
    await writeFile(haproxyFile, haproxyConfig(haproxyPort, nodes));
    haproxy = spawn('haproxy', ['-f', haproxyFile, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout?.on('data', (chunk: Buffer) => (haproxyOutput = (haproxyOutput + chunk.toString()).slice(-10_000)));
    haproxy.stderr?.on('data', (chunk: Buffer) => (haproxyOutput = (haproxyOutput + chunk.toString()).slice(-10_000)));
    const databaseUrl = `postgres://postgres@127.0.0.1:${haproxyPort}/postgres`;
    // HAProxy counts a server up until its first check fails: wait until new connections reach the primary only.
    let inARow = 0;
    await waitFor('HAProxy to send connections to the primary only', async () => {
      const probe = new PostgresDatabase({ connectionString: databaseUrl, poolSize: 1 });
      try {
        const [row] = await probe.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
        inARow = row?.recovering === false ? inARow + 1 : 0;
      } catch {
        inARow = 0;
      } finally {
        await probe.close();
      }
      return inARow >= 8;
    }, 30_000, 100).catch((error: Error) => {
      throw new Error(`${error.message}:\n${haproxyOutput}`);
    });

    // 4. The chaos run through it, with the two faults.
    const acknowledgements: { startedAt: number; answeredAt: number }[] = [];
    const faults: (Omit<FaultReport, 'rtoSeconds'> & { atMs: number })[] = [];
    let trafficBegan = 0;
    const fault = async (name: string, kill: (node: PatroniNode) => void) => {
      // RPO zero needs a synchronous standby at the moment of the loss: wait for one (after the
      // first fault the restarted primary's standby reconnects).
      await waitFor('a synchronous standby before the fault', synchronous, 60_000);
      const primary = await leader();
      if (!primary) throw new Error('no primary before the fault');
      const atMs = Date.now();
      kill(primary);
      // A primary again: a new connection through HAProxy reaches a node out of recovery.
      await waitFor('a primary again', async () => {
        const probe = new PostgresDatabase({ connectionString: databaseUrl, poolSize: 1 });
        try {
          const [row] = await probe.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
          return row?.recovering === false;
        } finally {
          await probe.close();
        }
      }, 120_000, 50);
      const after = await leader();
      const primaryAgainMs = Date.now() - atMs;
      faults.push({ fault: name, atMs, at: seconds(atMs - trafficBegan), primaryAgainSeconds: seconds(primaryAgainMs), primaryBefore: primary.name, primaryAfter: after?.name ?? 'none' });
      return `${name} (${primary.name}) at ${seconds(atMs - trafficBegan)} s: a primary (${after?.name ?? '?'}) reached through HAProxy after ${seconds(primaryAgainMs)} s`;
    };
    const postmasterPid = (node: PatroniNode) => Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const chaos = await runChaos({
      seconds: options.seconds,
      clients: options.clients,
      kills: 0,
      terminations: 0,
      drainSeconds: options.drainSeconds,
      instances: options.instances,
      databaseUrl,
      faults: [
        {
          name: 'SIGKILL of the primary postmaster',
          run: () => fault('SIGKILL of the primary postmaster', (node) => process.kill(postmasterPid(node), 'SIGKILL')),
        },
        {
          name: 'the whole primary node killed (Patroni and PostgreSQL, SIGKILL)',
          run: () => fault('the whole primary node killed (Patroni and PostgreSQL, SIGKILL)', (node) => {
            const pid = postmasterPid(node);
            node.killed = true;
            node.daemon?.child.kill('SIGKILL');
            process.kill(pid, 'SIGKILL');
          }),
        },
      ],
      onAcknowledged: (startedAt, answeredAt) => {
        if (trafficBegan === 0) trafficBegan = startedAt;
        acknowledgements.push({ startedAt, answeredAt });
      },
      log,
    });
    const problems: string[] = [];
    const reports: FaultReport[] = faults.map(({ atMs, ...rest }) => {
      const first = acknowledgements.filter((each) => each.startedAt >= atMs).reduce((min, each) => Math.min(min, each.answeredAt), Infinity);
      return { ...rest, rtoSeconds: first === Infinity ? null : seconds(first - atMs) };
    });
    for (const report of reports) if (report.rtoSeconds === null) problems.push(`nothing was acknowledged after "${report.fault}"`);
    if (reports.length !== 2) problems.push(`${reports.length} faults happened, not 2`);
    const survivor = alive()[0]!;
    const finalMembers = await members(survivor);
    const timelineAfter = await timeline();
    const promoted = reports[1];
    if (promoted && promoted.primaryAfter === promoted.primaryBefore) problems.push('the killed node is still the primary');
    if (timelineAfter <= timelineBefore) problems.push(`timeline ${timelineBefore} before, ${timelineAfter} after: no promotion`);
    // Patroni must still be running on the survivor (the servers recovered through it).
    if (survivor.daemon?.child.exitCode !== null) problems.push(`Patroni on ${survivor.name} exited:\n${survivor.daemon?.output()}`);
    return { chaos, faults: reports, cluster: { members: finalMembers }, timelines: { before: timelineBefore, after: timelineAfter }, problems };
  } finally {
    await cleanup();
    await sleep(0);
  }
}

/** Whether Patroni, etcd and HAProxy are installed (Debian packages patroni, etcd-server, haproxy). */
export function failoverTools(): string | false {
  for (const [program, pkg] of [['patroni', 'patroni'], ['etcd', 'etcd-server'], ['haproxy', 'haproxy']] as const) {
    if (spawnSync('which', [program], { stdio: 'ignore' }).status !== 0) return `needs ${program} (apt install ${pkg}; .ci/run installs it)`;
  }
  return postgresBinDir() ? false : 'needs the PostgreSQL server binaries (/usr/lib/postgresql/*/bin)';
}
