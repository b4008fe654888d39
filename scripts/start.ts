// `npm start`: the sync server (embedded PGlite in ./data unless DATABASE_URL is set) and the
// kiosk terminal pointed at it, with the hardware simulators when no reader or printer is set.
// Ctrl-C closes the terminal first (its requests go to the server), then the server.
import { runFromEnvironment } from '../sync-server/src/main.ts';
import { ensureDashboardBuilt, watchDashboard } from '../dashboard/src/build.ts';
import { ensureWebBuilt, watchWeb } from '../web/src/build.ts';
import type { BuildWatcher } from '../web/src/build/cached-build.ts';
import { startTerminalHost } from '../terminal/src/host/index.ts';
import { type RunningRailFakes, startRailFakes } from './rail-fakes.ts';
import type { TerminalHost } from '../terminal/src/host/index.ts';

let terminal: TerminalHost | undefined;
const watchers: BuildWatcher[] = [];
// The front ends the server serves, built by Vite when missing or their sources changed, then
// rebuilt on every change while it runs (the server reads the files on each request).
if (!process.env.WEB_DIR) {
  const started = Date.now();
  if (await ensureWebBuilt()) console.log(`Pages and checkout drop-in built in ${Date.now() - started} ms`);
  watchers.push(watchWeb());
}
if (!process.env.DASHBOARD_DIR) {
  const started = Date.now();
  if (await ensureDashboardBuilt()) console.log(`Dashboard built in ${Date.now() - started} ms`);
  watchers.push(watchDashboard());
}
// RAIL_FAKES=1: the payment providers' local fakes stand in for Paystack, Flutterwave, M-Pesa and MoMo.
let railFakes: RunningRailFakes | undefined;
if (process.env.RAIL_FAKES === '1') {
  railFakes = await startRailFakes();
  console.log(`Payment provider fakes (live mode pays through them): ${railFakes.describe().join('; ')}`);
}
const server = await runFromEnvironment({
  beforeShutdown: async () => {
    for (const watcher of watchers) watcher.close();
    await terminal?.close();
    await railFakes?.stop();
  },
});
console.log(`Merchant dashboard: ${server.url}/dashboard/ (an owner's set-up link: POST /api/admin/merchants/<id>/owner {"email": ...})`);
try {
  terminal = await startTerminalHost({ syncServerUrl: server.url });
} catch (error) {
  console.error(`The terminal could not start: ${(error as Error).message}`);
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') console.error('Set TERMINAL_PORT to another port (0 picks a free one).');
  await server.close();
  process.exit(1);
}

const { nfc, printer } = terminal;
console.log(`Terminal: ${terminal.url} — open it in Chromium (the Electron kiosk app, npm run build:electron -w @tapline/terminal, shows the same page)`);
console.log(`  hardware: NFC reader ${nfc.driver} (${nfc.status().state}), printer ${printer.status().printer}`);
console.log('  pair it with the pairing code POST /api/merchant/terminals answers: README.md "Try the terminal" shows how');
if (nfc.driver === 'simulated') console.log('  the reader is the simulator: the waiting screen has a "Simulate a tap" field for a tag id (NFC_READER=pcsc for a real reader)');
