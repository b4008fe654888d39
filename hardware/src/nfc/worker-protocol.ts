/**
 * Messages between the parent (PcscNfcReader) and the driver process (pcsc-worker.ts). They
 * cross a process boundary, so the parent checks their shape before it trusts them.
 */
import type { UnsupportedTagReason } from './types.ts';

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'heartbeat' }
  | { type: 'unavailable'; reason: string }
  | { type: 'attach'; readerName: string }
  | { type: 'detach'; readerName: string }
  /** Memory of a Type 2 tag from page 0, in hex; the parent parses it. */
  | { type: 'type2'; readerName: string; uid: string; memoryHex: string }
  | { type: 'unsupported'; readerName: string; uid: string; reason: UnsupportedTagReason; detail?: string }
  | { type: 'error'; message: string };

export type ParentMessage = { type: 'stop' };

const REASONS: ReadonlySet<string> = new Set<UnsupportedTagReason>(['iso14443_4', 'not_ndef_formatted', 'read_failed']);
const STRING_LENGTH_MAX = 4096;

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value.length <= STRING_LENGTH_MAX;
}

function isHex(value: unknown): value is string {
  return typeof value === 'string' && value.length <= STRING_LENGTH_MAX && /^([0-9A-F]{2})*$/.test(value);
}

export function parseWorkerMessage(value: unknown): WorkerMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'heartbeat':
      return { type: m.type };
    case 'unavailable':
      return isShortString(m.reason) ? { type: 'unavailable', reason: m.reason } : null;
    case 'attach':
    case 'detach':
      return isShortString(m.readerName) ? { type: m.type, readerName: m.readerName } : null;
    case 'type2':
      return isShortString(m.readerName) && isHex(m.uid) && isHex(m.memoryHex) ? { type: 'type2', readerName: m.readerName, uid: m.uid, memoryHex: m.memoryHex } : null;
    case 'unsupported': {
      if (!isShortString(m.readerName) || !isHex(m.uid) || typeof m.reason !== 'string' || !REASONS.has(m.reason)) return null;
      const message: WorkerMessage = { type: 'unsupported', readerName: m.readerName, uid: m.uid, reason: m.reason as UnsupportedTagReason };
      if (isShortString(m.detail)) message.detail = m.detail;
      return message;
    }
    case 'error':
      return isShortString(m.message) ? { type: 'error', message: m.message } : null;
    default:
      return null;
  }
}
