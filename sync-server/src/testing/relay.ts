// A TCP relay a test can cut and restore: between the terminal host and the sync server ("the
// shop's connection drops" without stopping the server), or between the sync server and
// PostgreSQL ("the database restarts" without touching a cluster other tests share).
import { type Server, type Socket, connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Relay {
  /** http://127.0.0.1:<relay port>: give this to the terminal host as the sync server. */
  url: string;
  /** The relay's port on 127.0.0.1 (for a database URL). */
  port: number;
  /** Drops every open connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Relays to the host and port of `targetUrl` (http://... or postgres://...). */
export async function startRelay(targetUrl: string): Promise<Relay> {
  const target = new URL(targetUrl);
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    cut() {
      cut = true;
      destroyAll();
    },
    restore() {
      cut = false;
    },
    close() {
      destroyAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
