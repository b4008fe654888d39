// `npm run server`: the sync server alone from the sources (under tsx), after building the front
// ends it serves when they are missing or stale (the pages and drop-in, the dashboard), so an
// operator who starts it this way gets every page. Production runs the built bundle instead:
// `npm run build`, then `node sync-server/dist/main.js` (docs/deploy.md).
import { runFromEnvironment } from '../sync-server/src/main.ts';
import { ensureFrontEnds } from './front-ends.ts';

await ensureFrontEnds((variable) => Boolean(process.env[variable]));
await runFromEnvironment();
