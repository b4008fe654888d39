// `npm run build`: everything a server and a kiosk need, from the lock file's packages:
//   web/dist         the server's pages and the checkout drop-in (/web, /sdk/service.js)
//   dashboard/dist   the merchant dashboard (/dashboard)
//   terminal/dist    the kiosk app: renderer, Electron main and preload (electron-builder.yml packages it)
//   sync-server/dist the server bundle: `node sync-server/dist/main.js` (no tsx, no dev dependency)
// Each part is built from scratch and timed. `npm start` keeps building what it needs by itself.
import { buildDashboard } from '../dashboard/src/build.ts';
import { buildServer } from '../sync-server/src/build/server-build.ts';
import { buildElectron } from '../terminal/src/build/electron-build.ts';
import { buildWeb } from '../web/src/build.ts';

const parts: [string, () => Promise<string>][] = [
  ['pages and drop-in (web/dist)', async () => (await buildWeb(), '')],
  ['dashboard (dashboard/dist)', async () => (await buildDashboard(), '')],
  ['kiosk app (terminal/dist)', async () => `${Object.keys((await buildElectron()).inputs).length} bundles`],
  ['server (sync-server/dist/main.js)', async () => {
    const built = await buildServer();
    return `${built.modules} modules; run-time packages: ${built.packages.length}`;
  }],
];

const started = Date.now();
for (const [name, run] of parts) {
  const partStarted = Date.now();
  const detail = await run();
  console.log(`${name}: ${Date.now() - partStarted} ms${detail ? ` (${detail})` : ''}`);
}
console.log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s. Start the production server with: node sync-server/dist/main.js (docs/deploy.md)`);
