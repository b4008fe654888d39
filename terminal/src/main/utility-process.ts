import type { ElectronLike } from './electron-like.ts';

/** A utility process as the hardware code drives it: messages both ways, kill, exit. */
export interface UtilityChild<Out> {
  postMessage(message: Out): void;
  kill(): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number) => void): void;
}

/**
 * Forks one of the app's built workers (dist/main/*.js) as an Electron utility process: the
 * packaged app has no Node to fork (the RunAsNode fuse is off), and a utility process keeps a
 * native fault or a busy loop in a driver away from the main process and the till's window.
 * Messages to a process that has exited are dropped; killing it twice is harmless.
 */
export function forkUtilityProcess<Out>(utilityProcess: ElectronLike['utilityProcess'], modulePath: string, serviceName: string, env: NodeJS.ProcessEnv): UtilityChild<Out> {
  const child = utilityProcess.fork(modulePath, [], { serviceName, stdio: 'inherit', env });
  let exited = false;
  child.on('exit', () => void (exited = true));
  return {
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
