// PostgreSQL clusters of a test's own (never the shared server on 5432): the Debian binaries under
// /usr/lib/postgresql/<version>/bin, data and sockets in a directory under /tmp, run as the
// `postgres` system user when the test runs as root (PostgreSQL refuses to run as root), as the
// current user otherwise. Used by the point-in-time restore (pitr.ts) and the failover run
// (failover/failover.ts), which also starts pgBackRest, Patroni and etcd as that user.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))).sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest ? join(root, newest, 'bin') : undefined;
}

/** Whether a program answers on PATH (`which`). */
export function installed(program: string): boolean {
  return spawnSync('which', [program], { stdio: 'ignore' }).status === 0;
}

export interface OsUser {
  uid?: number;
  gid?: number;
}

/** Who runs the clusters: `postgres` when we are root, else ourselves. */
export function clusterUser(): OsUser {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) throw new Error('running as root needs a `postgres` system user (the postgresql package makes one)');
  return { uid, gid };
}

/** A directory under /tmp owned by the cluster user. */
export async function clusterTempDir(prefix: string, user: OsUser): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid ?? user.uid);
  return dir;
}

/** mkdir -p as the cluster user, mode 0700 (PostgreSQL wants its data directory so). */
export function makeDir(path: string, user: OsUser): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (user.uid !== undefined) chownSync(path, user.uid, user.gid ?? user.uid);
  return path;
}

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a program as the cluster user and waits for it; throws with its output unless it exits 0 (or `allowFailure`). */
export function run(user: OsUser, program: string, args: string[], options: { env?: Record<string, string>; allowFailure?: boolean; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...user, cwd: options.cwd ?? '/tmp', env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 || options.allowFailure) resolve({ code, output });
      else reject(new Error(`${program} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** Starts a long-running program as the cluster user, collecting what it prints. */
export function startDaemon(user: OsUser, program: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(program, args, { ...user, cwd: '/tmp', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it answers true; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

/** Seconds with one decimal, for the printed figures. */
export const seconds = (ms: number) => Math.round(ms / 100) / 10;
