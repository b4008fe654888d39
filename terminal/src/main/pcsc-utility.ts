import type { ParentMessage, WorkerHandle } from '@tapline/hardware';
import type { ElectronLike } from './electron-like.ts';
import { forkUtilityProcess } from './utility-process.ts';

/**
 * Starts the PC/SC driver (dist/main/pcsc-worker.js) as an Electron utility process: it keeps
 * what the forked worker gave `npm start`: a native fault or a busy loop in the driver costs a
 * restart by the reader (back-off, heartbeat watchdog), never the till's window.
 */
export function utilityProcessWorker(utilityProcess: ElectronLike['utilityProcess'], modulePath: string, env: NodeJS.ProcessEnv): WorkerHandle {
  const child = forkUtilityProcess<ParentMessage>(utilityProcess, modulePath, 'Tapline NFC reader', env);
  return {
    pid: child.pid,
    onMessage: (listener) => child.onMessage(listener as (message: unknown) => void),
    onExit: (listener) => child.onExit((code) => listener(code, null)),
    send: (message) => child.postMessage(message),
    kill: () => child.kill(),
  };
}
