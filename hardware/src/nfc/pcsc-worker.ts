/**
 * The PC/SC driver process. The parent forks it so that a fault or a busy loop in the native
 * pcsclite binding costs a restart, never the kiosk UI. It reads tags and reports raw results
 * over IPC; all interpretation happens in the parent.
 */
import { toHex } from '@tapline/shared/ndef';
import type * as NfcPcsc from 'nfc-pcsc';
import type { PcscCard, PcscReader } from 'nfc-pcsc';
import { checkPcscd } from './pcscd.ts';
import { readType2Memory } from './type2-read.ts';
import type { ParentMessage, WorkerMessage } from './worker-protocol.ts';

const HEARTBEAT_INTERVAL_MS = Number(process.env.TAPLINE_NFC_HEARTBEAT_MS ?? 5000);
const GET_UID_APDU = Buffer.from([0xff, 0xca, 0x00, 0x00, 0x00]);
const STATUS_OK = 0x9000;

/**
 * The channel to the parent: Node's IPC when forked (npm start), or Electron's parentPort when
 * the kiosk app runs this as a utility process (the packaged app cannot fork Node itself).
 */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}
const parentPort = (process as { parentPort?: ParentPort }).parentPort;

function send(message: WorkerMessage): void {
  if (parentPort !== undefined) parentPort.postMessage(message);
  else if (process.connected) process.send?.(message);
}

function onParentMessage(listener: (message: ParentMessage) => void): void {
  if (parentPort !== undefined) parentPort.on('message', (event) => listener(event.data as ParentMessage));
  else process.on('message', listener);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readUid(reader: PcscReader): Promise<string> {
  const response = await reader.transmit(GET_UID_APDU, 12);
  if (response.length < 2 || response.readUInt16BE(response.length - 2) !== STATUS_OK) throw new Error('GET DATA (UID) failed');
  return toHex(response.subarray(0, response.length - 2));
}

async function handleCard(reader: PcscReader, card: PcscCard): Promise<void> {
  const readerName = reader.name;
  let uid: string;
  try {
    uid = await readUid(reader);
  } catch (error) {
    send({ type: 'unsupported', readerName, uid: '', reason: 'read_failed', detail: errorText(error) });
    return;
  }
  // nfc-pcsc classifies by ATR: ISO 14443-4 covers contactless bank cards, DESFire and phones.
  if (card.standard === 'TAG_ISO_14443_4') {
    send({ type: 'unsupported', readerName, uid, reason: 'iso14443_4' });
    return;
  }
  try {
    const memory = await readType2Memory(async (page) => new Uint8Array(await reader.read(page, 16, 4, 16)));
    send({ type: 'type2', readerName, uid, memoryHex: toHex(memory) });
  } catch (error) {
    send({ type: 'unsupported', readerName, uid, reason: 'read_failed', detail: errorText(error) });
  }
}

function watchReader(reader: PcscReader): void {
  // We read the tag ourselves; nfc-pcsc's automatic processing would demand an AID for
  // ISO 14443-4 cards and emit an error for every phone.
  reader.autoProcessing = false;
  send({ type: 'attach', readerName: reader.name });
  reader.on('card', (card: PcscCard) => {
    handleCard(reader, card).catch((error: unknown) => send({ type: 'error', message: errorText(error) }));
  });
  reader.on('error', (error: unknown) => send({ type: 'error', message: `${reader.name}: ${errorText(error)}` }));
  reader.on('end', () => send({ type: 'detach', readerName: reader.name }));
}

async function main(): Promise<void> {
  const check = checkPcscd();
  if (!check.available) {
    send({ type: 'unavailable', reason: check.message });
    process.exit(0);
  }
  let NFC: typeof NfcPcsc.NFC;
  try {
    // CommonJS from ESM: the class is a named export when Node detects it, else on default.
    const module = (await import('nfc-pcsc')) as typeof NfcPcsc & { default?: typeof NfcPcsc };
    NFC = module.NFC ?? module.default?.NFC;
    if (typeof NFC !== 'function') throw new Error('nfc-pcsc exports no NFC class');
  } catch (error) {
    send({ type: 'unavailable', reason: `nfc-pcsc could not be loaded (${errorText(error)}); it is an optional dependency with a native build` });
    process.exit(0);
  }
  const nfc = new NFC();
  nfc.on('reader', (reader: PcscReader) => watchReader(reader));
  nfc.on('error', (error: unknown) => send({ type: 'error', message: `PC/SC: ${errorText(error)}` }));
  setInterval(() => send({ type: 'heartbeat' }), HEARTBEAT_INTERVAL_MS);
  onParentMessage((message) => {
    if (message.type === 'stop') {
      nfc.close();
      process.exit(0);
    }
  });
  // The parent went away (crash or exit): do not linger holding the reader. (Electron ends a
  // utility process with the app.)
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
}

main().catch((error: unknown) => {
  send({ type: 'error', message: errorText(error) });
  process.exit(1);
});
