import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { UtilityProcessLike } from '../electron-like.ts';

const PARENT_PORT_SHIM = fileURLToPath(new URL('./parent-port-shim.mjs', import.meta.url));

/** Children started by nodeUtilityProcess, for a test's clean-up. */
export const utilityChildren = new Set<ChildProcess>();

/**
 * Electron's utilityProcess.fork, played by a Node child process: the child gets
 * process.parentPort (messages as {data}), as a utility process does, and no process.send.
 * Sending to it behaves as Electron's postMessage does (see postMessage below).
 * `imports` are more `--import` modules for the child (module resolution hooks, say).
 */
export function nodeUtilityProcess(modulePath: string, _args: string[], options: { env?: NodeJS.ProcessEnv }, imports: string[] = []): UtilityProcessLike {
  const execArgv = ['--import', 'tsx', '--import', PARENT_PORT_SHIM, ...imports.flatMap((path) => ['--import', path])];
  const child = fork(modulePath, [], { execArgv, env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  utilityChildren.add(child);
  child.on('exit', () => utilityChildren.delete(child));
  return {
    get pid() {
      return child.pid;
    },
    // As Electron's: a message to a process that died but whose exit has not been heard yet is
    // dropped (its channel is gone: the write fails), never an error; after the exit, it throws.
    postMessage: (message) => {
      if (child.exitCode !== null || child.signalCode !== null) throw new TypeError('the utility process has exited');
      if (child.connected) child.send(message as object, undefined, undefined, () => undefined);
    },
    kill: () => child.kill('SIGKILL'),
    on(event: string, listener: (...args: never[]) => void) {
      if (event === 'exit') child.on('exit', (code) => (listener as (code: number) => void)(code ?? 1));
      else child.on(event, listener as never);
      return this;
    },
  } as UtilityProcessLike;
}
