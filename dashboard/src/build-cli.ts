// `npm run build -w @tapline/dashboard [outDir]`: builds the dashboard (default dashboard/dist).
import { DEFAULT_DASHBOARD_DIST, buildDashboard } from './build.ts';

const outDir = process.argv[2] ?? DEFAULT_DASHBOARD_DIST;
const started = Date.now();
await buildDashboard(outDir);
console.log(`dashboard built into ${outDir} in ${Date.now() - started} ms`);
