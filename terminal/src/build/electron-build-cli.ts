// `npm run build:electron -w @tapline/terminal`: the kiosk app into terminal/dist (renderer, main,
// preload, first-start page), ready for `electron-builder` (electron-builder.yml at the root).
import { relative } from 'node:path';
import { ELECTRON_DIST_DIR, buildElectron } from './electron-build.ts';

const started = Date.now();
const built = await buildElectron(ELECTRON_DIST_DIR);
console.log(`Kiosk app built into ${built.outDir} in ${Date.now() - started} ms:`);
for (const [file, inputs] of Object.entries(built.inputs)) console.log(`  ${file} (${inputs.length} modules, ${inputs.filter((input) => input.includes('node_modules/')).length} from packages)`);
console.log(`Package it with: TAPLINE_UPDATE_URL=<your update server> npx electron-builder --config ${relative(process.cwd(), new URL('../../../electron-builder.yml', import.meta.url).pathname)} (needs the Electron binary: see terminal/README.md)`);
