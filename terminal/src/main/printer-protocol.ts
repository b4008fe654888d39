/**
 * Messages between the main process (UtilityPrinter, printer-utility.ts) and the printer's
 * utility process (printer-worker.ts). They cross a process boundary, so each side checks the
 * other's messages before it acts on them.
 */
import { type DrawerReason, type DrawerRequest, type DrawerResult, type JobEvent, type PrintOptions, type PrintResult, type PrinterStatus, type ReceiptDocument, DRAWER_REASONS } from '@tapline/hardware';

export type PrinterCallMethod = 'print' | 'openDrawer' | 'refreshStatus';

/** main -> printer process */
export type PrinterParentMessage =
  | { type: 'call'; id: number; method: 'print'; document: ReceiptDocument; options: PrintOptions }
  | { type: 'call'; id: number; method: 'openDrawer'; request: DrawerRequest }
  | { type: 'call'; id: number; method: 'refreshStatus' }
  | { type: 'stop' };

/** printer process -> main */
export type PrinterWorkerMessage =
  | { type: 'ready'; name: string; status: PrinterStatus }
  | { type: 'status'; status: PrinterStatus }
  | { type: 'job'; event: JobEvent }
  | { type: 'answer'; id: number; ok: true; result: PrintResult | PrinterStatus | DrawerResult | null }
  /** code: print_queue_full (the durable queue refuses), else failed. */
  | { type: 'answer'; id: number; ok: false; code: 'print_queue_full' | 'failed'; message: string };

const STRING_LENGTH_MAX = 4096;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isShortString = (value: unknown): value is string => typeof value === 'string' && value.length <= STRING_LENGTH_MAX;
const isStatus = (value: unknown): value is PrinterStatus => isObject(value) && isShortString(value.printer) && (value.state === 'idle' || value.state === 'printing' || value.state === 'offline') && Number.isInteger(value.queuedJobs);
const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/** The printer process's messages as the main process accepts them; null for anything else. */
export function parsePrinterWorkerMessage(value: unknown): PrinterWorkerMessage | null {
  if (!isObject(value)) return null;
  switch (value.type) {
    case 'ready':
      return isShortString(value.name) && isStatus(value.status) ? { type: 'ready', name: value.name, status: value.status } : null;
    case 'status':
      return isStatus(value.status) ? { type: 'status', status: value.status } : null;
    case 'job': {
      const event = value.event;
      return isObject(event) && isShortString(event.jobId) && (event.state === 'printed' || event.state === 'retrying') && Number.isInteger(event.attempts) ? { type: 'job', event: event as unknown as JobEvent } : null;
    }
    case 'answer':
      if (!isId(value.id)) return null;
      if (value.ok === true) return { type: 'answer', id: value.id, ok: true, result: (value.result ?? null) as PrintResult | PrinterStatus | DrawerResult | null };
      if (value.ok === false && isShortString(value.message)) return { type: 'answer', id: value.id, ok: false, code: value.code === 'print_queue_full' ? 'print_queue_full' : 'failed', message: value.message };
      return null;
    default:
      return null;
  }
}

/** The main process's messages as the printer process accepts them; null for anything else. */
export function parsePrinterParentMessage(value: unknown): PrinterParentMessage | null {
  if (!isObject(value)) return null;
  if (value.type === 'stop') return { type: 'stop' };
  if (value.type !== 'call' || !isId(value.id)) return null;
  if (value.method === 'refreshStatus') return { type: 'call', id: value.id, method: value.method };
  // BridgeHost checked the request too; a kick is not sent on anything less than a whole one.
  if (value.method === 'openDrawer') {
    const request = value.request;
    if (!isObject(request) || !DRAWER_REASONS.includes(request.reason as DrawerReason) || !isShortString(request.jobId) || request.jobId.length === 0) return null;
    return { type: 'call', id: value.id, method: 'openDrawer', request: { reason: request.reason as DrawerReason, jobId: request.jobId } };
  }
  // The document was checked by BridgeHost in the main process; here only its outline.
  if (value.method === 'print' && isObject(value.document) && Array.isArray(value.document.blocks) && isObject(value.options ?? {}))
    return { type: 'call', id: value.id, method: 'print', document: value.document as unknown as ReceiptDocument, options: (value.options ?? {}) as PrintOptions };
  return null;
}
