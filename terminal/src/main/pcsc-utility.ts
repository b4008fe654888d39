import type { WorkerHandle } from '@tapline/hardware/src/nfc/index.ts';
import type { ParentMessage } from '@tapline/hardware/src/nfc/worker-protocol.ts';
import type { ElectronLike } from './electron-like.ts';

/**
 * Starts the PC/SC driver (dist/main/pcsc-worker.js) as an Electron utility process: the packaged
 * app has no Node to fork (the RunAsNode fuse is off), and a utility process keeps what the
 * forked worker gave: a native fault or a busy loop in the driver costs a restart by the reader
 * (back-off, heartbeat watchdog), never the till's window.
 */
export function utilityProcessWorker(utilityProcess: ElectronLike['utilityProcess'], modulePath: string, env: NodeJS.ProcessEnv): WorkerHandle {
  const child = utilityProcess.fork(modulePath, [], { serviceName: 'Tapline NFC reader', stdio: 'inherit', env });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  return {
    onMessage: (listener) => void child.on('message', listener),
    onExit: (listener) => void child.on('exit', (code) => listener(code, null)),
    send: (message: ParentMessage) => {
      if (!exited) child.postMessage(message);
    },
    kill: () => {
      if (!exited) child.kill();
    },
  };
}
