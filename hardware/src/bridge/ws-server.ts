import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import type { NfcReader } from '../nfc/types.ts';
import type { SimulatedNfcReader } from '../nfc/simulated-reader.ts';
import type { ReceiptPrinter } from '../printer/types.ts';
import { newBridgeSecret, secretMatches, verifyConnection } from './access.ts';
import { BridgeHost } from './host.ts';
import { BRIDGE_PROTOCOL_VERSION, MESSAGE_BYTES_MAX } from './protocol.ts';
import type { HostMessage } from './protocol.ts';

export interface BridgeServerOptions {
  nfc: NfcReader;
  printer: ReceiptPrinter;
  simulator?: SimulatedNfcReader;
  /** 0 picks a free port. */
  port?: number;
  /** Defaults to a new random secret for this start. */
  secret?: string;
  /** Pages allowed to connect (Origin header); null allows any page that knows the secret. */
  allowedOrigins?: string[] | null;
  maxClients?: number;
  /** A client that has not authenticated by then is disconnected. */
  helloTimeoutMs?: number;
}

/** Close codes in the application range (4000-4999). */
export const CLOSE_UNAUTHORIZED = 4001;
export const CLOSE_HELLO_TIMEOUT = 4002;
export const CLOSE_TOO_MANY_CLIENTS = 4003;
const IN_FLIGHT_PER_CLIENT_MAX = 32;

/**
 * The bridge over a WebSocket on 127.0.0.1, for a terminal UI running in a plain browser.
 * The client proves it knows this start's secret with `?secret=` on the URL or in its first
 * message ({method: "hello", params: {secret}}); nothing else is answered before that.
 */
export class BridgeWebSocketServer {
  readonly secret: string;
  readonly #server: WebSocketServer;
  readonly #options: BridgeServerOptions;

  private constructor(server: WebSocketServer, secret: string, options: BridgeServerOptions) {
    this.#server = server;
    this.secret = secret;
    this.#options = options;
    server.on('connection', (socket, request) => this.#accept(socket, request));
  }

  static async start(options: BridgeServerOptions): Promise<BridgeWebSocketServer> {
    const secret = options.secret ?? newBridgeSecret();
    const allowedOrigins = options.allowedOrigins ?? null;
    const server = new WebSocketServer({
      host: '127.0.0.1',
      port: options.port ?? 0,
      maxPayload: MESSAGE_BYTES_MAX,
      verifyClient: (info, callback) => {
        const verdict = verifyConnection(info.req.socket.remoteAddress, info.origin || undefined, allowedOrigins);
        if (verdict.accept) callback(true);
        else callback(false, verdict.status, verdict.reason);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    return new BridgeWebSocketServer(server, secret, options);
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** ws://127.0.0.1:<port>/ — give the secret separately (or as ?secret=). */
  get url(): string {
    return `ws://127.0.0.1:${this.port}/`;
  }

  async close(): Promise<void> {
    for (const client of this.#server.clients) client.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: WebSocket, request: IncomingMessage): void {
    if (this.#server.clients.size > (this.#options.maxClients ?? 8)) {
      socket.close(CLOSE_TOO_MANY_CLIENTS, 'too many clients');
      return;
    }
    const presented = new URL(request.url ?? '/', 'ws://127.0.0.1').searchParams.get('secret');
    let authenticated = presented !== null && secretMatches(presented, this.secret);
    if (presented !== null && !authenticated) {
      socket.close(CLOSE_UNAUTHORIZED, 'wrong secret');
      return;
    }
    let inFlight = 0;
    let host: BridgeHost | null = null;
    const send = (message: HostMessage) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    const startHost = () => {
      host = new BridgeHost({ nfc: this.#options.nfc, printer: this.#options.printer, send, ...(this.#options.simulator ? { simulator: this.#options.simulator } : {}) });
    };
    if (authenticated) startHost();
    const helloTimer = authenticated ? null : setTimeout(() => socket.close(CLOSE_HELLO_TIMEOUT, 'no hello'), this.#options.helloTimeoutMs ?? 5000);

    socket.on('message', (data: RawData, isBinary: boolean) => {
      let message: unknown;
      try {
        message = isBinary ? null : JSON.parse(data.toString());
      } catch {
        message = null;
      }
      if (!authenticated) {
        const hello = message as { type?: unknown; id?: unknown; method?: unknown; params?: { secret?: unknown } } | null;
        if (hello?.type !== 'request' || hello.method !== 'hello' || !secretMatches(hello.params?.secret, this.secret)) {
          socket.close(CLOSE_UNAUTHORIZED, 'wrong secret');
          return;
        }
        authenticated = true;
        if (helloTimer !== null) clearTimeout(helloTimer);
        startHost();
        send({ type: 'response', id: Number.isSafeInteger(hello.id) ? (hello.id as number) : 0, ok: true, result: { protocolVersion: BRIDGE_PROTOCOL_VERSION } });
        return;
      }
      if (inFlight >= IN_FLIGHT_PER_CLIENT_MAX) {
        const id = (message as { id?: unknown } | null)?.id;
        if (Number.isSafeInteger(id)) send({ type: 'response', id: id as number, ok: false, error: { code: 'failed', message: 'too many requests in flight' } });
        return;
      }
      inFlight += 1;
      void host?.handle(message).finally(() => {
        inFlight -= 1;
      });
    });
    socket.on('close', () => {
      if (helloTimer !== null) clearTimeout(helloTimer);
      host?.dispose();
    });
    socket.on('error', () => socket.terminate());
  }
}
