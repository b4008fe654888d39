import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type NfcReader, type PaperWidth, type ReceiptPrinter, type SimulatedNfcReader, isLoopbackAddress, printerConfigFromEnv } from '@tapline/hardware';
import type { TerminalConfig } from '../renderer/lib/terminal-config.ts';
import { type DisplayListen, displayListenFromEnv, terminalPortFromEnv } from './config.ts';
import { DisplayHub, isDisplayHubPath, ownPageCheck, tabletUrls } from './display-hub.ts';
import { startHardware } from './hardware.ts';
import { isProxiedPath, proxyHandler, upgradeHandler } from './proxy.ts';
import { staticFileHandler } from './static-files.ts';

export interface HostServerOptions {
  /** The sync server the renderer's /api, /tap, /pay and /socket.io requests are forwarded to. */
  syncServerUrl: string;
  /** Default TERMINAL_PORT or 5174; 0 picks a free port. The host listens on 127.0.0.1 only. */
  port?: number;
  /** The built renderer (index.html and assets), served as is. */
  staticDir: string;
  /**
   * How the page reaches the hardware: 'websocket' (default) opens the loopback bridge and puts
   * its address and secret in /terminal-config.json; 'ipc' opens no socket at all, because the
   * Electron main process carries the hardware over IPC (main/hardware-ipc.ts).
   */
  hardwareBridge?: 'websocket' | 'ipc';
  /** The reader and printer to use; by default from NFC_READER and PRINTER. The host closes them. */
  nfc?: NfcReader;
  printer?: ReceiptPrinter;
  /** How receipts are laid out; by default paper and language from PRINTER_PAPER / PRINTER_LANGUAGE. */
  receipt?: Partial<TerminalConfig['receipt']>;
  /**
   * The LAN listener for a tablet's customer display (display-hub.ts); by default from
   * KIOSK_DISPLAY_LISTEN; null: none (the default: the kiosk listens on loopback only).
   */
  displayListen?: DisplayListen | null;
  /** Where the paired tablets' token hashes survive a restart (the kiosk app's data folder); in memory without. */
  displayTokenFile?: string;
  log?: (line: string) => void;
}

export interface TerminalHost {
  /** http://127.0.0.1:<port> */
  url: string;
  nfc: NfcReader;
  printer: ReceiptPrinter;
  /** The reader when it is the simulator (nfc.simulateTap is allowed only then). */
  simulator: SimulatedNfcReader | null;
  /** How the page lays out receipts (served at /terminal-config.json in a browser, over IPC in the app). */
  receipt: TerminalConfig['receipt'];
  /** The customer display's hub: the till publishes to it, paired tablets follow it. */
  displayHub: DisplayHub;
  /** The LAN listener's base URL (http://<address>:<port>), or null when there is none. */
  displayUrl: string | null;
  close(): Promise<void>;
}

function receiptSettings(given: Partial<TerminalConfig['receipt']> = {}): TerminalConfig['receipt'] {
  const needsEnv = given.paperWidth === undefined || given.language === undefined;
  const printer = needsEnv ? printerConfigFromEnv() : null;
  return {
    paperWidth: given.paperWidth ?? (printer?.paperWidth as PaperWidth),
    language: given.language ?? printer?.language ?? 'en',
    timeZone: given.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The terminal's page and hardware: serves a built renderer on 127.0.0.1 (Chromium will not run
 * a module build from file://), forwards the API to the sync server so the page is same-origin,
 * and runs the hardware, reached over a loopback bridge whose address and per-start secret the
 * page reads from /terminal-config.json, or over Electron IPC. It never builds anything and
 * imports no build tool, so the packaged kiosk app bundles it (index.ts adds the build).
 */
export async function startHostServer(options: HostServerOptions): Promise<TerminalHost> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { staticDir } = options;
  const receipt = receiptSettings(options.receipt);
  const serveStatic = staticFileHandler(staticDir);
  const proxy = proxyHandler(options.syncServerUrl);
  let config: TerminalConfig | null = null;
  let allowedHosts: Set<string> = new Set();
  const displayHub = new DisplayHub(options.displayTokenFile === undefined ? {} : { tokenFile: options.displayTokenFile });
  const displayLocal = displayHub.handleLocal(ownPageCheck(() => allowedHosts));

  const serveConfig = (request: IncomingMessage, response: ServerResponse) => {
    // The secret opens the printer and reader: only for this machine, and only under our own
    // host name, so a page that rebinds its DNS name to 127.0.0.1 cannot read it.
    if (!isLoopbackAddress(request.socket.remoteAddress) || !allowedHosts.has(request.headers.host ?? '')) {
      response.writeHead(403, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'Forbidden', code: 'forbidden' }));
      return;
    }
    if (options.hardwareBridge === 'ipc') {
      // The Electron app hands the page its settings over IPC: nothing of the hardware on loopback HTTP.
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'The kiosk app gives the page its configuration over IPC', code: 'not_found' }));
      return;
    }
    if (config === null) {
      response.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'Hardware is starting', code: 'starting' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(config));
  };

  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (isProxiedPath(pathname)) proxy(request, response);
    else if (pathname === '/terminal-config.json') serveConfig(request, response);
    else if (isDisplayHubPath(pathname)) displayLocal(request, response);
    else
      serveStatic(request, response).catch((error: unknown) => {
        log(`terminal: serving ${pathname} failed: ${(error as Error).message}`);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  // socket.io's WebSocket for the replica; any other upgrade is not ours to answer.
  const upgrade = upgradeHandler(options.syncServerUrl);
  // Upgraded sockets are no longer HTTP connections: closeAllConnections() does not end them,
  // and server.close() would wait for them (the page's WebSocket) for ever.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isProxiedPath(new URL(request.url ?? '/', 'http://localhost').pathname)) {
      socket.destroy();
      return;
    }
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    upgrade(request, socket, head);
  });
  const port = await listen(server, options.port ?? terminalPortFromEnv());
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  let lan: Server | null = null;
  let displayUrl: string | null = null;
  let hardware;
  try {
    const displayListen = options.displayListen === undefined ? displayListenFromEnv() : options.displayListen;
    if (displayListen !== null) {
      lan = tabletServer(displayHub, serveStatic, log);
      const lanPort = await listen(lan, displayListen.port, displayListen.host);
      displayHub.urls = tabletUrls(displayListen.host, lanPort);
      displayHub.listening = true;
      displayUrl = `http://${displayListen.host.includes(':') ? `[${displayListen.host}]` : displayListen.host}:${lanPort}`;
      log(`terminal: tablets open the customer display at ${displayHub.urls.join(', ') || `${displayUrl}/tablet`}`);
    }
    hardware = await startHardware({
      webSocket: options.hardwareBridge !== 'ipc',
      allowedOrigins: [...allowedHosts].map((host) => `http://${host}`),
      ...(options.nfc ? { nfc: options.nfc } : {}),
      ...(options.printer ? { printer: options.printer } : {}),
    });
  } catch (error) {
    server.close();
    lan?.close();
    displayHub.close();
    throw error;
  }
  config = hardware.bridge === null ? { receipt } : { bridgeUrl: hardware.bridge.url, bridgeSecret: hardware.bridge.secret, receipt };
  const { nfc, printer, simulator } = hardware;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    nfc,
    printer,
    simulator,
    receipt,
    displayHub,
    displayUrl,
    close() {
      closing ??= (async () => {
        displayHub.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        const lanClosed = new Promise<void>((resolve) => (lan === null ? resolve() : lan.close(() => resolve())));
        // Open keep-alive connections (a browser tab, a tablet's event stream) would hold close() forever.
        server.closeAllConnections();
        lan?.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
        await Promise.all([closed, lanClosed, hardware.close()]);
      })();
      return closing;
    },
  };
}

/**
 * The LAN listener: only what a paired tablet needs, the /tablet page (the same build), its
 * assets, pairing and the event stream. No API proxy, no hardware, no till endpoints.
 */
function tabletServer(hub: DisplayHub, serveStatic: ReturnType<typeof staticFileHandler>, log: (line: string) => void): Server {
  const tablet = hub.handleTablet();
  return createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (isDisplayHubPath(pathname)) return tablet(request, response);
    if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      response.writeHead(302, { location: '/tablet' }).end();
      return;
    }
    if (pathname !== '/tablet' && !pathname.startsWith('/assets/')) {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'Only the customer display is served here: open /tablet', code: 'not_found' }));
      return;
    }
    serveStatic(request, response).catch((error: unknown) => {
      log(`terminal: serving ${pathname} to a tablet failed: ${(error as Error).message}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
}
