// `npm run build -w @tapline/web [outDir]`: builds the pages and the drop-in (default web/dist)
// and prints the drop-in's size, raw and gzipped.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { DEFAULT_WEB_DIST, buildWeb } from './build.ts';

const outDir = process.argv[2] ?? DEFAULT_WEB_DIST;
const started = Date.now();
await buildWeb(outDir);
const dropIn = readFileSync(`${outDir}/sdk/service.js`);
console.log(`pages and drop-in built into ${outDir} in ${Date.now() - started} ms`);
console.log(`sdk/service.js: ${dropIn.length} bytes, ${gzipSync(dropIn, { level: 9 }).length} gzipped`);
