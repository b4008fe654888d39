// Entry point of the packaged kiosk app (electron-builder.yml): `electron terminal/src/main/main.ts`
// in development, dist/main/index.js when packaged. Electron is loaded at run time and is not a
// dependency of this workspace: its binary cannot be downloaded where we build and test, and
// everything it would run is tested in Node (kiosk.test.ts, the host's tests) and Chromium.
import { startTerminalHost } from '../host/index.ts';
import { type ElectronLike, runKiosk } from './kiosk.ts';

const electronModule = 'electron';
const electron = (await import(electronModule)) as ElectronLike;
await runKiosk(electron, {
  syncServerUrl: process.env.SYNC_SERVER_URL?.trim() || 'http://127.0.0.1:3000',
  startHost: startTerminalHost,
  kiosk: process.env.KIOSK !== '0',
});
