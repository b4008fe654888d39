// Entry point of the kiosk app: bundled by `npm run build:electron -w @tapline/terminal` into
// dist/main/index.js (electron-builder.yml packages it), which is what Electron runs. Everything it
// does is in kiosk.ts, tested in Node against a stand-in for Electron (kiosk.test.ts), and the
// bundle itself is started in Node against the same stand-in (build/electron-build.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as electron from 'electron';
import { startHostServer } from '../host/server.ts';
import type { ElectronLike } from './electron-like.ts';
import { runKiosk } from './kiosk.ts';
import type { UpdaterLike } from './updates.ts';

// The real module must keep satisfying what the shell is written against.
const electronApi: ElectronLike = electron;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function loadUpdater(): Promise<UpdaterLike | null> {
  try {
    // electron-updater reads the app's version and app-update.yml through Electron on import.
    const module = (await import('electron-updater')) as { autoUpdater?: UpdaterLike; default?: { autoUpdater?: UpdaterLike } };
    return module.autoUpdater ?? module.default?.autoUpdater ?? null;
  } catch (error) {
    console.error(`kiosk: electron-updater could not be loaded: ${(error as Error).message}`);
    return null;
  }
}

try {
  await runKiosk(electronApi, {
    paths: {
      renderer: here('../renderer/'),
      preload: here('../preload/index.cjs'),
      provisionPage: here('../provision/index.html'),
      pcscWorker: here('./pcsc-worker.js'),
      printerWorker: here('./printer-worker.js'),
    },
    startHost: startHostServer,
    env: process.env,
    argv: process.argv,
    kiosk: process.env.KIOSK !== '0',
    updater: electronApi.app.isPackaged ? await loadUpdater() : null,
    // electron-builder writes the feed it was given (publish.url) there; without one, only
    // kiosk-config.json's updateUrl or TAPLINE_UPDATE_URL can turn updates on.
    packagedUpdateFeed: typeof process.resourcesPath === 'string' && existsSync(join(process.resourcesPath, 'app-update.yml')),
  });
} catch (error) {
  // A kiosk service restarts the app (systemd Restart=always); say why before leaving.
  console.error(`kiosk: could not start: ${(error as Error).stack ?? String(error)}`);
  electronApi.app.exit(1);
}
