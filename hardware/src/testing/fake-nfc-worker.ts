/**
 * Stands in for pcsc-worker.ts in tests of the real fork and IPC path: reports a reader and one
 * NTAG213 tap, then crashes when FAKE_NFC_WORKER_CRASH is set, as a native fault would. It talks
 * over Node's IPC when forked, or over process.parentPort when run as an (Electron-like) utility
 * process, as pcsc-worker.ts does.
 */
import { buildType2TagImage, toHex } from '@tapline/shared/ndef';
import type { WorkerMessage } from '../nfc/worker-protocol.ts';

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}
const parentPort = (process as { parentPort?: ParentPort }).parentPort;

function send(message: WorkerMessage): void {
  if (parentPort !== undefined) parentPort.postMessage(message);
  else if (process.connected) process.send?.(message);
}

const uid = Uint8Array.of(0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66);
const memory = buildType2TagImage({ model: 'NTAG213', uid, uri: 'https://pay.tapline.test/tap/TG0BADCAFE' });
send({ type: 'ready' });
send({ type: 'attach', readerName: 'ACS ACR122U PICC Interface' });
send({ type: 'type2', readerName: 'ACS ACR122U PICC Interface', uid: toHex(uid), memoryHex: toHex(memory.subarray(0, 64)) });
if (process.env.FAKE_NFC_WORKER_CRASH === '1') {
  setTimeout(() => process.exit(3), 50);
} else {
  if (parentPort !== undefined) parentPort.on('message', () => process.exit(0));
  else process.on('message', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
  setInterval(() => send({ type: 'heartbeat' }), 1000);
}
