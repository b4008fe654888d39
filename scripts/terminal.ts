// `npm run terminal`: the kiosk terminal alone, pointed at a sync server that runs elsewhere
// (SYNC_SERVER_URL, default http://127.0.0.1:3000). With `npm run server` in another shell, stopping
// that server is how to watch the terminal take payments offline and settle them on its return.
import { startTerminalHost } from '../terminal/src/host/index.ts';

const syncServerUrl = process.env.SYNC_SERVER_URL?.trim() || 'http://127.0.0.1:3000';
let terminal;
try {
  terminal = await startTerminalHost({ syncServerUrl });
} catch (error) {
  console.error(`The terminal could not start: ${(error as Error).message}`);
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') console.error('Set TERMINAL_PORT to another port (0 picks a free one).');
  process.exit(1);
}
const host = terminal;
console.log(`Terminal: ${host.url} (sync server ${syncServerUrl}) — open it in Chromium`);
console.log(`  hardware: NFC reader ${host.nfc.driver} (${host.nfc.status().state}), printer ${host.printer.status().printer}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void host.close().then(() => process.exit(0));
  });
}
