import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const mainFile = fileURLToPath(new URL('../main.ts', import.meta.url));
const children = new Set<ChildProcess>();
let cleanupRegistered = false;

export interface ServerProcessOptions {
  /**
   * Default true: killed when the test file's process exits. (Not node:test's after(): called
   * from a before() hook, that would run as soon as the hook ends and kill the server a suite was
   * about to use.) False: the caller kills it, as a script that is no test at all (the chaos run) does.
   */
  killAfterTest?: boolean;
  /** A built server to run with plain node (sync-server/dist/main.js); default: the sources under tsx. */
  builtMain?: string;
}

/** Spawns the server's entry point (`npm run server`) with extra environment. */
export function spawnServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): ChildProcess {
  if (options.killAfterTest !== false && !cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => {
      for (const child of children) child.kill('SIGKILL');
    });
  }
  const args = options.builtMain ? [options.builtMain] : ['--import', 'tsx', mainFile];
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (options.killAfterTest !== false) {
    children.add(child);
    child.once('exit', () => children.delete(child));
  }
  return child;
}

export interface StartedServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far, stdout and stderr. */
  output: () => string;
}

/** Spawns the server and resolves once it prints the URL it listens on. */
export function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<StartedServerProcess> {
  const child = spawnServerProcess(env, options);
  let output = '';
  return new Promise((resolve, reject) => {
    // A generous ceiling: a fresh embedded database's migrations under tsx on a loaded 2-core CI
    // machine took over a minute.
    const timer = setTimeout(() => reject(new Error(`server did not start within 240 s:\n${output}`)), 240_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+) \(/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // A signal with no output at all (seen once in CI) points outside the server: say which.
      reject(new Error(`server exited with ${code === null ? `signal ${signal}` : `code ${code}`} before it listened:\n${output}`));
    });
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Ports handed out by freePort: below Linux's ephemeral range (32768-60999), where the system
 * picks the local port of every outgoing connection (to PostgreSQL, to a fake, to a server) and
 * of every listen(0). A port taken from that range could be handed to one of those between the
 * probe and the real listen (seen: EADDRINUSE for a test server's pre-chosen port on a busy run).
 */
const FREE_PORT_FIRST = 20_000;
const FREE_PORT_LAST = 32_767;

/** A port nobody listens on now on 127.0.0.1 (a server to start on it, a fake to call it back). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  for (let attempt = 1; ; attempt++) {
    const port = FREE_PORT_FIRST + Math.floor(Math.random() * (FREE_PORT_LAST - FREE_PORT_FIRST + 1));
    const probe = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return port;
    }
    if (attempt >= 50) throw new Error(`no free port between ${FREE_PORT_FIRST} and ${FREE_PORT_LAST} after 50 tries`);
  }
}
