// Builds what is stale of the front ends the sync server serves: the pages and the drop-in
// (web/), and the dashboard (dashboard/). `npm test` runs it first; `npm start` does the same and
// then watches their sources.
import { ensureDashboardBuilt } from '../dashboard/src/build.ts';
import { ensureWebBuilt } from '../web/src/build.ts';

for (const [name, ensure] of [['pages and drop-in', () => ensureWebBuilt()], ['dashboard', () => ensureDashboardBuilt()]] as const) {
  const started = Date.now();
  if (await ensure()) console.log(`${name} built in ${Date.now() - started} ms`);
}
