// The front ends the sync server serves, built when missing or stale: the pages and the drop-in
// (web/), and the dashboard (dashboard/). Used by `npm test` (build-front-ends.ts) and `npm run
// server`; `npm start` builds them its own way because it also watches their sources.
import { ensureDashboardBuilt } from '../dashboard/src/build.ts';
import { ensureWebBuilt } from '../web/src/build.ts';

const FRONT_ENDS = [
  { name: 'pages and drop-in', variable: 'WEB_DIR', ensure: () => ensureWebBuilt() },
  { name: 'dashboard', variable: 'DASHBOARD_DIR', ensure: () => ensureDashboardBuilt() },
] as const;

/** Builds each stale front end and says so; `skip` leaves out one the server reads from elsewhere (its *_DIR set). */
export async function ensureFrontEnds(skip: (variable: (typeof FRONT_ENDS)[number]['variable']) => boolean = () => false): Promise<void> {
  for (const { name, variable, ensure } of FRONT_ENDS) {
    if (skip(variable)) continue;
    const started = Date.now();
    if (await ensure()) console.log(`${name} built in ${Date.now() - started} ms`);
  }
}
