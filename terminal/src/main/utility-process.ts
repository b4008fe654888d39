import type { ElectronLike } from './electron-like.ts';

/** A utility process as the hardware code drives it: messages both ways, kill, exit. */
export interface UtilityChild<Out> {
  readonly pid: number | undefined;
  postMessage(message: Out): void;
  kill(): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number) => void): void;
}

/**
 * Forks one of the app's built workers (dist/main/*.js) as an Electron utility process: the
 * packaged app has no Node to fork (the RunAsNode fuse is off), and a utility process keeps a
 * native fault or a busy loop in a driver away from the main process and the till's window.
 * Messages to a process that has exited (or is exiting) are dropped; killing it twice, or after
 * it died, is harmless.
 */
export function forkUtilityProcess<Out>(utilityProcess: ElectronLike['utilityProcess'], modulePath: string, serviceName: string, env: NodeJS.ProcessEnv): UtilityChild<Out> {
  const child = utilityProcess.fork(modulePath, [], { serviceName, stdio: 'inherit', env });
  let exited = false;
  child.on('exit', () => void (exited = true));
  // An 'error' nobody listens to would throw in the main process; the 'exit' that follows it is
  // what restarts the driver.
  child.on('error', () => undefined);
  return {
    get pid() {
      return child.pid;
    },
    postMessage: (message) => {
      if (exited) return;
      try {
        child.postMessage(message);
      } catch {
        // The process is going away and its exit is still on its way (its channel closes first):
        // the message is dropped like one sent after the exit; the exit listener restarts it.
      }
    },
    kill: () => {
      if (!exited) child.kill();
    },
    onMessage: (listener) => void child.on('message', listener),
    onExit: (listener) => void child.on('exit', listener),
  };
}
