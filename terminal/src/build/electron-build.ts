import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, type Metafile, type Plugin, build } from 'esbuild';
import { buildRenderer } from '../host/build.ts';

/** terminal/dist: what electron-builder.yml packages. */
export const ELECTRON_DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url));

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Left out of the main bundle and loaded from the packaged node_modules: Electron itself, the
 * native drivers (their .node binaries are built for Electron and unpacked from the asar),
 * electron-updater, and ws's optional native speed-ups (it works without them).
 */
export const MAIN_EXTERNALS = ['electron', 'electron-updater', 'nfc-pcsc', 'serialport', '@serialport/*', 'bufferutil', 'utf-8-validate'] as const;

/** Build and development tools that must never be reached from the app's run-time code. */
const FORBIDDEN = /^(vite|@sveltejs\/|svelte\/compiler|typescript|tsx|esbuild|rolldown|electron-builder|@electron\/fuses)(\/|$)/;

function forbidBuildTools(): Plugin {
  return {
    name: 'forbid-build-tools',
    setup(builder) {
      builder.onResolve({ filter: FORBIDDEN }, (args) => ({ errors: [{ text: `${args.importer} imports ${args.path}, a build tool, which the packaged app does not ship` }] }));
    },
  };
}

/**
 * hardware's forkWorker() forks the PC/SC driver's TypeScript under tsx (npm start). The app
 * starts the built driver as a utility process instead (main/pcsc-utility.ts), so the bundle gets
 * a forkWorker that says so rather than a reference to tsx.
 */
function withoutTsxFork(): Plugin {
  return {
    name: 'without-tsx-fork',
    setup(builder) {
      builder.onLoad({ filter: /hardware\/src\/nfc\/worker-process\.ts$/ }, () => ({
        loader: 'ts',
        contents: [
          "export const PCSC_WORKER_MODULE = new URL('./pcsc-worker.js', import.meta.url);",
          'export function forkWorker(): never {',
          "  throw new Error('the kiosk app starts the PC/SC driver as a utility process (spawnWorker), not by forking it under tsx');",
          '}',
        ].join('\n'),
      }));
    },
  };
}

// ESM output bundling CommonJS packages (ws, qrcode...) needs a real require for Node's built-ins.
const ESM_REQUIRE_BANNER = "import { createRequire as __taplineCreateRequire } from 'node:module'; const require = __taplineCreateRequire(import.meta.url);";

const NODE_BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  // Electron 40 runs Node 22 or newer.
  target: 'node22',
  format: 'esm',
  external: [...MAIN_EXTERNALS],
  banner: { js: ESM_REQUIRE_BANNER },
  plugins: [forbidBuildTools(), withoutTsxFork()],
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

export interface ElectronBuild {
  outDir: string;
  /** Inputs of each bundle, by output file (relative to outDir). */
  inputs: Record<string, string[]>;
}

function inputsOf(metafile: Metafile, outDir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    out[relative(outDir, resolve(file))] = Object.keys(output.inputs);
  }
  return out;
}

/**
 * Builds the kiosk app into `outDir` (terminal/dist): the renderer (the same Vite build the
 * browser gets) in renderer/, the main process and the PC/SC driver in main/ (ESM, Node),
 * the preload in preload/index.cjs (a sandboxed preload is a CommonJS script), and the
 * first-start page in provision/. The workspaces' TypeScript sources are compiled in; nothing
 * at run time needs Vite, TypeScript or tsx.
 */
export async function buildElectron(outDir: string = ELECTRON_DIST_DIR): Promise<ElectronBuild> {
  await rm(outDir, { recursive: true, force: true });
  await buildRenderer(join(outDir, 'renderer'));
  const results = await Promise.all([
    build({ ...NODE_BUNDLE, entryPoints: { index: source('../main/main.ts') }, outdir: join(outDir, 'main'), outExtension: { '.js': '.js' } }),
    build({ ...NODE_BUNDLE, entryPoints: { 'pcsc-worker': source('../../../hardware/src/nfc/pcsc-worker.ts'), 'printer-worker': source('../main/printer-worker.ts') }, outdir: join(outDir, 'main') }),
    build({
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      entryPoints: { index: source('../preload/index.ts') },
      outdir: join(outDir, 'preload'),
      outExtension: { '.js': '.cjs' },
      // A sandboxed preload may require only 'electron' (and a few Node modules): everything else is inlined.
      external: ['electron'],
      plugins: [forbidBuildTools()],
      legalComments: 'none',
      logLevel: 'warning',
      metafile: true,
    }),
    buildProvisionPage(join(outDir, 'provision')),
  ]);
  // The main bundle is ESM: say so next to it, whatever package.json the packager writes.
  await writeFile(join(outDir, 'main', 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  const inputs: Record<string, string[]> = {};
  for (const result of results) Object.assign(inputs, inputsOf(result.metafile!, outDir));
  return { outDir, inputs };
}

/**
 * The first-start page into `dir` (dist/provision): index.html, its stylesheet and provision.js,
 * one classic script (the page is loaded from a file, where module scripts do not run).
 */
export async function buildProvisionPage(dir: string) {
  const result = await build({
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    entryPoints: { provision: source('../provision/provision.ts') },
    outdir: dir,
    plugins: [forbidBuildTools()],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  await mkdir(dir, { recursive: true });
  await copyFile(source('../provision/index.html'), join(dir, 'index.html'));
  await copyFile(source('../provision/provision.css'), join(dir, 'provision.css'));
  return result;
}

/** The bare specifiers a bundle still imports or requires at run time (node: built-ins included). */
export async function runtimeImports(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const found = new Set<string>();
  const patterns = [/\bfrom\s*["']([^"'./][^"']*)["']/g, /\bimport\s*\(\s*["']([^"'./][^"']*)["']\s*\)/g, /(?:\b|__)require\s*\(\s*["']([^"'./][^"']*)["']\s*\)/g, /^\s*import\s*["']([^"'./][^"']*)["']/gm];
  // A package name (optionally scoped, with a subpath) or a node: built-in; other strings are not imports.
  const specifier = /^(node:[a-z_/]+|(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(\/[A-Za-z0-9._~/-]*)?)$/;
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) if (specifier.test(match[1]!)) found.add(match[1]!);
  return [...found].sort();
}
