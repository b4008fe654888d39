// `npm run build -w @tapline/sync-server`: the production server bundle, sync-server/dist/main.js.
import { buildServer } from './server-build.ts';

const started = Date.now();
const built = await buildServer();
console.log(`Server built into ${built.outDir} in ${Date.now() - started} ms (${built.modules} modules; run-time packages: ${built.packages.join(', ')})`);
