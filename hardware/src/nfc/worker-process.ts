import { fork } from 'node:child_process';
import type { ParentMessage } from './worker-protocol.ts';

/** The parent's view of a driver process; tests substitute a fake. */
export interface WorkerHandle {
  /** The process id, when the process started (logs, and tests that kill it behind our back). */
  readonly pid?: number | undefined;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  send(message: ParentMessage): void;
  kill(): void;
}

export const PCSC_WORKER_MODULE = new URL('./pcsc-worker.ts', import.meta.url);

/**
 * Forks a TypeScript module as a child process with IPC. The project runs TypeScript through
 * tsx with no build step, so the child gets tsx as its loader too (resolved from here, so it
 * works whatever the current directory is).
 */
export function forkWorker(module: URL = PCSC_WORKER_MODULE, env: NodeJS.ProcessEnv = process.env): WorkerHandle {
  const child = fork(module, [], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  // A failed spawn is reported through 'exit' as well; swallowing 'error' keeps it from throwing.
  child.on('error', () => undefined);
  return {
    pid: child.pid,
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', (code, signal) => listener(code, signal)),
    // A process that died may not have closed its channel yet (its exit is still on its way): the
    // write then fails, and the callback takes the error so the message is dropped, never thrown.
    send: (message) => {
      if (child.connected) child.send(message, undefined, undefined, () => undefined);
    },
    kill: () => {
      if (!exited) child.kill('SIGKILL');
    },
  };
}
