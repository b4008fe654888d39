// `npm run server`: the sync server alone from the sources (under tsx), after building the front
// ends it serves when they are missing or stale (the pages and drop-in, the dashboard), so an
// operator who starts it this way gets every page. Production runs the built bundle instead:
// `npm run build`, then `node sync-server/dist/main.js` (docs/deploy.md).
import { ensureDashboardBuilt } from '../dashboard/src/build.ts';
import { runFromEnvironment } from '../sync-server/src/main.ts';
import { ensureWebBuilt } from '../web/src/build.ts';

for (const [name, variable, ensure] of [['pages and drop-in', 'WEB_DIR', () => ensureWebBuilt()], ['dashboard', 'DASHBOARD_DIR', () => ensureDashboardBuilt()]] as const) {
  if (process.env[variable]) continue;
  const started = Date.now();
  if (await ensure()) console.log(`${name} built in ${Date.now() - started} ms`);
}
await runFromEnvironment();
