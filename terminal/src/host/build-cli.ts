// `npm run build -w @tapline/terminal`: builds the renderer into terminal/dist (npm start does
// this by itself when the build is missing or stale).
import { buildRenderer, DEFAULT_DIST_DIR } from './build.ts';

const started = Date.now();
await buildRenderer(DEFAULT_DIST_DIR);
console.log(`Terminal renderer built into ${DEFAULT_DIST_DIR} in ${Date.now() - started} ms`);
