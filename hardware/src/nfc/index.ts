import { systemClock } from '../clock.ts';
import type { Clock } from '../clock.ts';
import { DEFAULT_DEBOUNCE_WINDOW_MS } from './debounce.ts';
import { PcscNfcReader } from './pcsc-reader.ts';
import { checkPcscd } from './pcscd.ts';
import { SimulatedNfcReader } from './simulated-reader.ts';
import type { NfcReader } from './types.ts';
import type { WorkerHandle } from './worker-process.ts';

export type { NfcReader, NfcReaderEvents, NfcReaderStatus, TagEvent, UnsupportedTagEvent, UnsupportedTagReason, ReaderEvent } from './types.ts';
export { PcscNfcReader } from './pcsc-reader.ts';
export { SimulatedNfcReader } from './simulated-reader.ts';
export { checkPcscd, DEFAULT_PCSCD_SOCKET } from './pcscd.ts';
export type { WorkerHandle } from './worker-process.ts';
export { TapDebouncer, DEFAULT_DEBOUNCE_WINDOW_MS } from './debounce.ts';

export type NfcMode = 'auto' | 'pcsc' | 'simulated';

export interface NfcConfig {
  mode: NfcMode;
  /** {base_url} for the simulator's tag ids. */
  baseUrl: string;
  debounceWindowMs: number;
}

/** NFC_READER (auto | pcsc | simulated), NFC_DEBOUNCE_MS, PUBLIC_BASE_URL. */
export function nfcConfigFromEnv(env: NodeJS.ProcessEnv = process.env): NfcConfig {
  const mode = env.NFC_READER ?? 'auto';
  if (mode !== 'auto' && mode !== 'pcsc' && mode !== 'simulated') throw new Error(`NFC_READER must be auto, pcsc or simulated, got ${JSON.stringify(mode)}`);
  const debounce = env.NFC_DEBOUNCE_MS === undefined ? DEFAULT_DEBOUNCE_WINDOW_MS : Number(env.NFC_DEBOUNCE_MS);
  if (!Number.isInteger(debounce) || debounce < 0 || debounce > 60_000) throw new Error('NFC_DEBOUNCE_MS must be an integer from 0 to 60000');
  return { mode, baseUrl: env.PUBLIC_BASE_URL?.trim() || 'http://localhost:3000', debounceWindowMs: debounce };
}

/**
 * The reader for this machine: 'auto' takes the PC/SC driver when a PC/SC service runs and the
 * simulator otherwise, so `npm start` works on a laptop without a reader. `spawnWorker` starts
 * the driver process another way than forking it under tsx (the Electron app's utility process).
 */
export function createNfcReader(config: NfcConfig, clock: Clock = systemClock, options: { spawnWorker?: () => WorkerHandle } = {}): NfcReader {
  const usePcsc = config.mode === 'pcsc' || (config.mode === 'auto' && checkPcscd().available);
  if (usePcsc) return new PcscNfcReader({ clock, debounceWindowMs: config.debounceWindowMs, ...(options.spawnWorker ? { spawnWorker: options.spawnWorker } : {}) });
  return new SimulatedNfcReader({ baseUrl: config.baseUrl, clock, debounceWindowMs: config.debounceWindowMs });
}
