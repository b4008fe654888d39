import { SerialPort } from 'serialport';
import { TransportError } from './types.ts';
import type { PrinterTransport } from './types.ts';
import { StatusInbox } from './status-inbox.ts';

/** The part of a serialport stream we use; SerialPort and SerialPortMock both fit. */
export interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (error: Error | null) => void): void;
  write(data: Buffer, callback: (error: Error | null | undefined) => void): boolean;
  drain(callback: (error: Error | null) => void): void;
  close(callback: (error: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error' | 'close', listener: (error?: Error | null) => void): this;
}

export type SerialPortFactory = (options: { path: string; baudRate: number }) => SerialPortLike;

export interface SerialTransportOptions {
  path: string;
  baudRate?: number;
  /** For tests: SerialPortMock over @serialport/binding-mock. */
  createPort?: SerialPortFactory;
  sendTimeoutMs?: number;
  statusTimeoutMs?: number;
  /**
   * 'drain' (default): the OS has pushed every byte out of the UART. 'status': also wait for the
   * answer to a DLE EOT request (needs a printer that has its return line wired).
   */
  confirm?: 'drain' | 'status';
}

const defaultFactory: SerialPortFactory = ({ path, baudRate }) => new SerialPort({ path, baudRate, autoOpen: false });

/**
 * Serial printing (RS-232, or USB adapters that appear as /dev/ttyUSB* and /dev/ttyACM*). The
 * port stays open between jobs because serial ports are exclusive anyway; after any error it is
 * closed and opened again for the next job.
 */
export class SerialTransport implements PrinterTransport {
  readonly description: string;
  readonly #options: Required<Omit<SerialTransportOptions, 'createPort'>> & { createPort: SerialPortFactory };
  #port: SerialPortLike | null = null;
  readonly #inbox = new StatusInbox();

  constructor(options: SerialTransportOptions) {
    this.#options = { baudRate: 9600, sendTimeoutMs: 30_000, statusTimeoutMs: 1500, confirm: 'drain', createPort: defaultFactory, ...options };
    this.description = `serial ${this.#options.path}@${this.#options.baudRate}`;
  }

  /** The open port, for tests that read what a mock port recorded. */
  get port(): SerialPortLike | null {
    return this.#port;
  }

  async send(bytes: Uint8Array): Promise<void> {
    await this.#withTimeout(this.#options.sendTimeoutMs, async () => {
      const port = await this.#open();
      this.#inbox.clear();
      await new Promise<void>((resolve, reject) => port.write(Buffer.from(bytes), (error) => (error ? reject(error) : resolve())));
      await new Promise<void>((resolve, reject) => port.drain((error) => (error ? reject(error) : resolve())));
      if (this.#options.confirm === 'status') {
        const [answer] = (await this.#ask(port, [Uint8Array.of(0x10, 0x04, 0x01)])) ?? [];
        if (answer === undefined) throw new TransportError('no_confirmation', `${this.description} did not answer the status request`);
      }
    });
  }

  async query(requests: readonly Uint8Array[]): Promise<number[] | null> {
    try {
      return await this.#withTimeout(this.#options.statusTimeoutMs * (requests.length + 1), async () => this.#ask(await this.#open(), requests));
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    const port = this.#port;
    this.#port = null;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  async #ask(port: SerialPortLike, requests: readonly Uint8Array[]): Promise<number[] | null> {
    const answers: number[] = [];
    for (const request of requests) {
      this.#inbox.clear();
      await new Promise<void>((resolve, reject) => port.write(Buffer.from(request), (error) => (error ? reject(error) : resolve())));
      const answer = await this.#inbox.next(this.#options.statusTimeoutMs);
      if (answer === null) return null;
      answers.push(answer);
    }
    return answers;
  }

  async #open(): Promise<SerialPortLike> {
    if (this.#port?.isOpen) return this.#port;
    const port = this.#options.createPort({ path: this.#options.path, baudRate: this.#options.baudRate });
    await new Promise<void>((resolve, reject) =>
      port.open((error) => (error ? reject(new TransportError('open_failed', `${this.description}: ${error.message}`)) : resolve())),
    );
    port.on('data', (chunk) => this.#inbox.receive(chunk));
    // An unplugged adapter closes the port; the next job opens it again.
    port.on('close', () => {
      if (this.#port === port) this.#port = null;
    });
    port.on('error', () => {
      if (this.#port === port) this.#port = null;
    });
    this.#port = port;
    return port;
  }

  async #withTimeout<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TransportError('timeout', `${this.description} timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      // Whatever state the port is in now, start the next job from a fresh open.
      await this.close().catch(() => undefined);
      throw error instanceof TransportError ? error : new TransportError('write_failed', `${this.description}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
