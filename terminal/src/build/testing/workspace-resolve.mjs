// `--import`ed by the built utility processes (printer-worker.js) the smoke test starts: the
// packages the bundles leave external (serialport...) resolve from the terminal workspace, as the
// packaged app's node_modules would provide them to a build in a temporary folder.
import { register } from 'node:module';

register('./electron-hooks.mjs', import.meta.url, { data: { standInUrl: new URL('./electron-stand-in.mjs', import.meta.url).href, workspaceUrl: new URL('../../../package.json', import.meta.url).href } });
