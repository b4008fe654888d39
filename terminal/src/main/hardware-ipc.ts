import { type BridgeResponse, type HostMessage, type NfcReader, type ReceiptPrinter, type SimulatedNfcReader, BridgeHost, MESSAGE_BYTES_MAX } from '@tapline/hardware';
import { IPC, IPC_HARDWARE_METHODS, type AppInfo, type HardwareAnswer, type KioskTerminalConfig } from '../preload/api.ts';
import type { IpcMainInvokeEventLike, IpcMainLike, WebContentsLike } from './electron-like.ts';

/** As on the WebSocket: a page with this many calls unanswered gets `failed` for the next. */
const IN_FLIGHT_MAX = 32;
const METHODS: ReadonlySet<string> = new Set(IPC_HARDWARE_METHODS);

export interface HardwareIpcOptions {
  ipcMain: IpcMainLike;
  nfc: NfcReader;
  printer: ReceiptPrinter;
  simulator: SimulatedNfcReader | null;
  /** The kiosk window's contents: the only sender answered, and where events go. */
  contents: () => WebContentsLike | null;
  /** The origin of the till's page (the host's http://127.0.0.1:<port>). */
  origin: string;
  appInfo: () => AppInfo;
  /** The receipt settings the host would serve a browser at /terminal-config.json. */
  terminalConfig: () => KioskTerminalConfig;
  /** The token the first start paired, handed to the page once (then null). */
  takeTerminalToken?: () => string | null;
  log: (line: string) => void;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function originOf(url: string | undefined): string | null {
  try {
    return url === undefined ? null : new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The hardware over Electron IPC: the page's calls (window.taplineKiosk.hardware) reach the
 * same BridgeHost the loopback WebSocket serves in a browser, and the reader's and printer's
 * events go back to the page. Every call is checked before it reaches a driver: it must come
 * from the kiosk window's main frame on the till's origin, name a method the page may call, and
 * carry a plain object of bounded size; BridgeHost then checks each method's parameters.
 */
export function registerHardwareIpc(options: HardwareIpcOptions): { dispose(): void } {
  const pending = new Map<number, (response: BridgeResponse) => void>();
  let nextId = 1;
  const host = new BridgeHost({
    nfc: options.nfc,
    printer: options.printer,
    ...(options.simulator ? { simulator: options.simulator } : {}),
    send: (message: HostMessage) => {
      if (message.type === 'response') {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
        return;
      }
      const contents = options.contents();
      if (contents !== null && !contents.isDestroyed()) contents.send(IPC.hardwareEvent, { event: message.event, data: message.data });
    },
  });

  const trusted = (event: IpcMainInvokeEventLike): boolean => {
    const contents = options.contents();
    const frame = event.senderFrame;
    return contents !== null && event.sender === contents && frame !== null && frame.parent === null && originOf(frame.url) === options.origin;
  };
  const refuse = (code: 'bad_request' | 'unauthorized' | 'failed', message: string): HardwareAnswer<never> => ({ ok: false, error: { code, message } });

  options.ipcMain.handle(IPC.hardware, async (event, method: unknown, params: unknown): Promise<HardwareAnswer<unknown>> => {
    if (!trusted(event)) {
      options.log(`kiosk: refused a hardware call from ${event.senderFrame?.url ?? 'an unknown frame'}`);
      return refuse('unauthorized', 'hardware calls are answered for the till page only');
    }
    if (typeof method !== 'string' || !METHODS.has(method)) return refuse('bad_request', `unknown method ${JSON.stringify(method)}`);
    if (!isPlainObject(params)) return refuse('bad_request', 'params must be an object');
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(params));
    } catch {
      return refuse('bad_request', 'params must be JSON data');
    }
    if (size > MESSAGE_BYTES_MAX) return refuse('bad_request', `params larger than ${MESSAGE_BYTES_MAX} bytes`);
    if (pending.size >= IN_FLIGHT_MAX) return refuse('failed', 'too many requests in flight');
    const id = nextId++;
    const answered = new Promise<BridgeResponse>((resolve) => pending.set(id, resolve));
    await host.handle({ type: 'request', id, method, params });
    const response = await answered;
    return response.ok ? { ok: true, result: response.result } : { ok: false, error: response.error };
  });
  options.ipcMain.handle(IPC.appInfo, (event) => {
    if (!trusted(event)) throw new Error('app info is answered for the till page only');
    return options.appInfo();
  });
  options.ipcMain.handle(IPC.terminalConfig, (event) => {
    if (!trusted(event)) throw new Error('the terminal configuration is answered for the till page only');
    return options.terminalConfig();
  });
  options.ipcMain.handle(IPC.takeTerminalToken, (event) => {
    if (!trusted(event)) throw new Error('the terminal token is handed to the till page only');
    return options.takeTerminalToken?.() ?? null;
  });

  return {
    dispose() {
      options.ipcMain.removeHandler(IPC.hardware);
      options.ipcMain.removeHandler(IPC.appInfo);
      options.ipcMain.removeHandler(IPC.terminalConfig);
      options.ipcMain.removeHandler(IPC.takeTerminalToken);
      host.dispose();
    },
  };
}
