/**
 * The terminal UI's side of the hardware bridge over WebSocket. Browser code: no Node imports,
 * only the standard WebSocket (pass one in where there is no global, e.g. Node 20 tests).
 */
import type { ReceiptDocument } from '../printer/document.ts';
import type { MerchantHeader, ReceiptInput, ReceiptSettings } from '../printer/layouts.ts';
import type { DrawerRequest } from '../printer/types.ts';
import type { BridgeEventName, BridgeEvents, BridgeMethod, BridgeMethods, HostMessage } from './protocol.ts';

interface MessageEventLike {
  data: unknown;
}

interface CloseEventLike {
  code: number;
  reason: string;
}

/** The members of the standard WebSocket this client uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: MessageEventLike) => void) | null;
  onclose: ((event: CloseEventLike) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface BridgeClientOptions {
  WebSocket?: WebSocketConstructor;
  requestTimeoutMs?: number;
}

export class BridgeClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeClientError';
  }
}

type Listener<E extends BridgeEventName> = (data: BridgeEvents[E]) => void;

const OPEN = 1;
const PENDING_MAX = 64;

export class HardwareBridgeClient {
  readonly #url: string;
  readonly #secret: string;
  readonly #WebSocket: WebSocketConstructor;
  readonly #timeoutMs: number;
  #socket: WebSocketLike | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  readonly #listeners = new Map<BridgeEventName, Set<(data: unknown) => void>>();
  #closeListeners = new Set<(code: number, reason: string) => void>();

  /** `url` is the bridge's ws://127.0.0.1:<port>/ address; `secret` is this start's secret. */
  constructor(url: string, secret: string, options: BridgeClientOptions = {}) {
    const globalWebSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    const WebSocketImpl = options.WebSocket ?? globalWebSocket;
    if (WebSocketImpl === undefined) throw new Error('No WebSocket implementation available');
    this.#url = url;
    this.#secret = secret;
    this.#WebSocket = WebSocketImpl;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /** Opens the connection and authenticates; rejects if the bridge refuses. */
  async connect(): Promise<void> {
    const socket = new this.#WebSocket(this.#url);
    this.#socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new BridgeClientError('connect_failed', `cannot connect to ${this.#url}`));
      socket.onclose = (event) => reject(new BridgeClientError('closed', `bridge closed the connection (${event.code} ${event.reason})`));
    });
    socket.onmessage = (event) => this.#receive(event.data);
    socket.onclose = (event) => {
      for (const [id, pending] of this.#pending) {
        clearTimeout(pending.timer);
        pending.reject(new BridgeClientError(event.code === 4001 ? 'unauthorized' : 'closed', `bridge closed the connection (${event.code} ${event.reason})`));
        this.#pending.delete(id);
      }
      for (const listener of this.#closeListeners) listener(event.code, event.reason);
    };
    socket.onerror = () => undefined;
    await this.request('hello', { secret: this.#secret });
  }

  request<M extends BridgeMethod>(method: M, params: BridgeMethods[M]['params']): Promise<BridgeMethods[M]['result']> {
    const socket = this.#socket;
    if (socket === null || socket.readyState !== OPEN) return Promise.reject(new BridgeClientError('not_connected', 'bridge is not connected'));
    if (this.#pending.size >= PENDING_MAX) return Promise.reject(new BridgeClientError('busy', 'too many requests waiting'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new BridgeClientError('timeout', `${method} got no answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      socket.send(JSON.stringify({ type: 'request', id, method, params }));
    });
  }

  on<E extends BridgeEventName>(event: E, listener: Listener<E>): () => void {
    const listeners = this.#listeners.get(event) ?? new Set();
    listeners.add(listener as (data: unknown) => void);
    this.#listeners.set(event, listeners);
    return () => listeners.delete(listener as (data: unknown) => void);
  }

  onClose(listener: (code: number, reason: string) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  hardwareStatus() {
    return this.request('hardware.status', {});
  }

  printerStatus() {
    return this.request('printer.status', {});
  }

  print(document: ReceiptDocument, options: { jobId?: string; label?: string } = {}) {
    return this.request('printer.print', { document, ...options });
  }

  printReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: ReceiptInput, jobId?: string) {
    return this.request('printer.printReceipt', { merchant, settings, receipt, ...(jobId === undefined ? {} : { jobId }) });
  }

  openDrawer(request: DrawerRequest) {
    return this.request('printer.openDrawer', { reason: request.reason, jobId: request.jobId });
  }

  simulateTap(tagIdOrUri: string) {
    return this.request('nfc.simulateTap', { tagIdOrUri });
  }

  close(): void {
    this.#socket?.close(1000, 'client closed');
    this.#socket = null;
  }

  #receive(data: unknown): void {
    let message: HostMessage;
    try {
      message = JSON.parse(String(data)) as HostMessage;
    } catch {
      return;
    }
    if (message.type === 'response') {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.ok) pending.resolve(message.result);
      else pending.reject(new BridgeClientError(message.error.code, message.error.message));
      return;
    }
    if (message.type === 'event') {
      for (const listener of this.#listeners.get(message.event) ?? []) listener(message.data);
    }
  }
}
