// Builds what is stale of the front ends the sync server serves (front-ends.ts). `npm test` runs
// it first; `npm start` does the same and then watches their sources.
import { ensureFrontEnds } from './front-ends.ts';

await ensureFrontEnds();
