import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A network receipt printer on 127.0.0.1 for tests: records every connection's bytes, answers
 * DLE EOT status requests, and can drop a job halfway and go offline, as a printer whose power
 * or network fails mid-receipt does.
 */
export class FakeNetworkPrinter {
  /** Bytes of each finished connection, in order. */
  readonly connections: Buffer[] = [];
  /** Answers to DLE EOT n, by n; null makes the printer ignore status requests. */
  statusAnswers: Record<number, number> | null = { 1: 0x12, 2: 0x12, 3: 0x12, 4: 0x12 };
  /** Cut the next job connection after this many bytes, and stop listening. */
  dropNextJobAfterBytes: number | null = null;
  port = 0;
  #server: Server | null = null;
  readonly #sockets = new Set<Socket>();

  async listen(): Promise<void> {
    const server = createServer((socket) => this.#serve(socket));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    if (address !== null && typeof address === 'object') this.port = address.port;
    this.#server = server;
  }

  /** Stops accepting connections (the printer is off); the port is kept for coming back. */
  async goOffline(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once every open connection has finished (the client may resolve before we see its FIN). */
  async idle(limitMs = 60_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (this.#sockets.size > 0) {
      if (Date.now() > deadline) throw new Error('connections still open');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** How many times `job` arrived complete, over all connections. */
  timesReceived(job: Uint8Array): number {
    const needle = Buffer.from(job);
    let count = 0;
    for (const data of this.connections) {
      let from = 0;
      for (;;) {
        const index = data.indexOf(needle, from);
        if (index < 0) break;
        count += 1;
        from = index + needle.length;
      }
    }
    return count;
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    let data = Buffer.alloc(0);
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      this.connections.push(data);
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const isJob = data[0] === 0x1b && data[1] === 0x40;
      if (isJob && this.dropNextJobAfterBytes !== null && data.length >= this.dropNextJobAfterBytes) {
        this.dropNextJobAfterBytes = null;
        data = data.subarray(0, Math.min(data.length, 200));
        record();
        void this.goOffline();
        return;
      }
      const n = data.length >= 3 && data[data.length - 3] === 0x10 && data[data.length - 2] === 0x04 ? data[data.length - 1] : undefined;
      const answer = n === undefined || this.statusAnswers === null ? undefined : this.statusAnswers[n];
      if (answer !== undefined) socket.write(Buffer.of(answer));
    });
    socket.on('end', () => {
      record();
      socket.end();
    });
    socket.on('close', () => {
      record();
      this.#sockets.delete(socket);
    });
    socket.on('error', () => undefined);
  }
}
