import { Socket } from 'node:net';
import { DLE_EOT_PRINTER } from '../status.ts';
import { StatusInbox } from './status-inbox.ts';
import { TransportError } from './types.ts';
import type { PrinterTransport } from './types.ts';

export interface TcpTransportOptions {
  host: string;
  /** Raw printing port; 9100 on practically every network receipt printer. */
  port?: number;
  connectTimeoutMs?: number;
  /** Longest wait for the job to be written and confirmed. */
  sendTimeoutMs?: number;
  /** Longest wait for a status answer. */
  statusTimeoutMs?: number;
  /**
   * How delivery is confirmed. 'status': a DLE EOT request after the job; its answer proves the
   * printer received every byte before it. 'drain': the socket flushed and closed cleanly.
   * 'auto' (default): 'status' if the printer answers status requests, else 'drain'.
   */
  confirm?: 'auto' | 'status' | 'drain';
}

/**
 * Raw TCP printing (port 9100). One connection per job: most printers accept a single client
 * at a time, and a long-lived connection would lock out the back office's own test prints.
 */
export class TcpTransport implements PrinterTransport {
  readonly description: string;
  readonly #options: Required<TcpTransportOptions>;
  #statusSupported: boolean | null = null;

  constructor(options: TcpTransportOptions) {
    this.#options = { port: 9100, connectTimeoutMs: 3000, sendTimeoutMs: 15_000, statusTimeoutMs: 1500, confirm: 'auto', ...options };
    this.description = `tcp ${this.#options.host}:${this.#options.port}`;
  }

  async send(bytes: Uint8Array): Promise<void> {
    const confirm = this.#options.confirm === 'auto' ? await this.#detectConfirmMode() : this.#options.confirm;
    await this.#session(this.#options.sendTimeoutMs, async (socket, reader) => {
      await write(socket, bytes);
      if (confirm === 'status') {
        await write(socket, DLE_EOT_PRINTER);
        const answer = await reader.nextStatusByte(this.#options.statusTimeoutMs);
        if (answer === null) throw new TransportError('no_confirmation', `${this.description} did not confirm the job`);
        reader.expectClose();
        socket.end();
        return;
      }
      reader.expectClose();
      await endAndWaitForClose(socket, this.#options.statusTimeoutMs);
    });
  }

  async query(requests: readonly Uint8Array[]): Promise<number[] | null> {
    const result = await this.#ask(requests);
    return Array.isArray(result) ? result : null;
  }

  async close(): Promise<void> {}

  async #ask(requests: readonly Uint8Array[]): Promise<number[] | 'silent' | 'unreachable'> {
    let connected = false;
    try {
      return await this.#session(this.#options.statusTimeoutMs * (requests.length + 1), async (socket, reader) => {
        connected = true;
        const answers: number[] = [];
        for (const request of requests) {
          await write(socket, request);
          const answer = await reader.nextStatusByte(this.#options.statusTimeoutMs);
          if (answer === null) return 'silent';
          answers.push(answer);
        }
        reader.expectClose();
        socket.end();
        return answers;
      });
    } catch {
      return connected ? 'silent' : 'unreachable';
    }
  }

  async #detectConfirmMode(): Promise<'status' | 'drain'> {
    if (this.#statusSupported === null) {
      const result = await this.#ask([DLE_EOT_PRINTER]);
      // An unreachable printer says nothing about its abilities: decide on the next job.
      if (result === 'unreachable') return 'drain';
      this.#statusSupported = Array.isArray(result);
    }
    return this.#statusSupported ? 'status' : 'drain';
  }

  async #session<T>(timeoutMs: number, work: (socket: Socket, reader: StatusReader) => Promise<T>): Promise<T> {
    const socket = new Socket();
    const reader = new StatusReader(socket);
    let timer: NodeJS.Timeout | undefined;
    try {
      await connect(socket, this.#options.host, this.#options.port, this.#options.connectTimeoutMs, this.description);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TransportError('timeout', `${this.description} timed out`)), timeoutMs);
      });
      return await Promise.race([work(socket, reader), timeout, reader.failure]);
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
  }
}

/** Collects status bytes a printer sends back, and turns a dropped connection into a rejection. */
class StatusReader {
  readonly failure: Promise<never>;
  readonly #inbox = new StatusInbox();
  #closeExpected = false;

  constructor(socket: Socket) {
    this.failure = new Promise<never>((_, reject) => {
      socket.on('error', (error) => reject(new TransportError('connection_failed', error.message)));
      socket.on('close', () => {
        if (!this.#closeExpected) reject(new TransportError('connection_closed', 'printer closed the connection'));
        this.#inbox.wake();
      });
    });
    // Rejections of `failure` are observed through Promise.race; this keeps an unraced one quiet.
    this.failure.catch(() => undefined);
    socket.on('data', (chunk: Buffer) => this.#inbox.receive(chunk));
  }

  /** From here on the connection closing is the normal end of the session. */
  expectClose(): void {
    this.#closeExpected = true;
  }

  nextStatusByte(timeoutMs: number): Promise<number | null> {
    return this.#inbox.next(timeoutMs);
  }
}

function connect(socket: Socket, host: string, port: number, timeoutMs: number, description: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new TransportError('connect_timeout', `${description} did not accept a connection within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new TransportError('connect_failed', `${description}: ${error.message}`));
    });
    socket.connect(port, host, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function write(socket: Socket, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(bytes, (error) => (error ? reject(new TransportError('write_failed', error.message)) : resolve()));
  });
}

/** Half-closes and waits for the printer to close too; its FIN comes after it read our bytes. */
function endAndWaitForClose(socket: Socket, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new TransportError('close_timeout', 'printer did not close the connection')), timeoutMs);
    socket.once('close', (hadError) => {
      clearTimeout(timer);
      if (hadError) reject(new TransportError('connection_failed', 'connection ended with an error'));
      else resolve();
    });
    socket.end();
  });
}
