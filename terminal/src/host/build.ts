import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { type Plugin, build } from 'vite';
import { withCspMeta } from './csp.ts';

/** Where the renderer's sources live and where `npm start` keeps its build. */
export const RENDERER_ROOT = fileURLToPath(new URL('../renderer/', import.meta.url));
export const DEFAULT_DIST_DIR = fileURLToPath(new URL('../../dist/renderer/', import.meta.url));

/**
 * Written next to index.html: every file the build read (Vite's own module graph: the renderer,
 * the shared and hardware modules it imports, the packages it bundles, index.html and the CSS),
 * each with its content hash. The next start rebuilds when any of them changed, so editing any
 * file the bundle uses rebuilds it, and nothing else does.
 */
const STAMP_FILE = '.build-inputs.json';
/** Bump when the stamp's format or the build's options change: an older build is then stale. */
const STAMP_VERSION = 2;

interface BuildStamp {
  version: number;
  /** Paths relative to the renderer's root, with the SHA-256 of their content. */
  inputs: Record<string, string>;
}

async function hashFile(file: string): Promise<string | null> {
  try {
    return createHash('sha256').update(await readFile(file)).digest('hex');
  } catch {
    return null;
  }
}

/** The files of the module graph: ids that are files (not Vite's virtual modules), without their query. */
function inputFiles(moduleIds: Iterable<string>): string[] {
  const files = new Set<string>();
  for (const id of moduleIds) {
    if (id.startsWith('\0') || id.startsWith('virtual:')) continue;
    const file = id.split('?')[0]!;
    if (isAbsolute(file)) files.add(file);
  }
  // The build's own recipe and the versions of its tools shape the output too.
  files.add(fileURLToPath(import.meta.url));
  files.add(fileURLToPath(new URL('./csp.ts', import.meta.url)));
  files.add(fileURLToPath(new URL('../../package.json', import.meta.url)));
  return [...files].sort();
}

/** The page's Content-Security-Policy as a <meta> in the built index.html (csp.ts). */
function cspMeta(): Plugin {
  return { name: 'tapline-csp', transformIndexHtml: { order: 'post', handler: (html) => withCspMeta(html) } };
}

/** Records the module graph as Rollup knows it once the bundle is built. */
function recordInputs(into: Set<string>): Plugin {
  return {
    name: 'tapline-record-inputs',
    apply: 'build',
    buildEnd() {
      for (const id of this.getModuleIds()) into.add(id);
    },
  };
}

/** Builds the renderer into `outDir` with Vite (no config file: everything is here). */
export async function buildRenderer(outDir: string): Promise<void> {
  const moduleIds = new Set<string>();
  await build({
    configFile: false,
    root: RENDERER_ROOT,
    base: '/',
    logLevel: 'warn',
    plugins: [svelte({ configFile: false }), cspMeta(), recordInputs(moduleIds)],
    // One bundle served from loopback to one kiosk window: its size warning is noise here.
    build: { outDir, emptyOutDir: true, target: 'chrome120', reportCompressedSize: false, chunkSizeWarningLimit: 2048 },
  });
  const inputs: Record<string, string> = {};
  for (const file of inputFiles(moduleIds)) {
    const hash = await hashFile(file);
    if (hash !== null) inputs[relative(RENDERER_ROOT, file)] = hash;
  }
  await writeFile(join(outDir, STAMP_FILE), `${JSON.stringify({ version: STAMP_VERSION, inputs } satisfies BuildStamp)}\n`);
}

/**
 * Whether `outDir` holds a build of the current sources: its stamp exists and every file it
 * lists still has the same content. A content hash rather than modification times: a git
 * checkout or a copy resets mtimes, and a build must never be taken for fresh when its sources
 * differ. A new file only matters once an existing one imports it, which changes that one.
 */
export async function isRendererBuildFresh(outDir: string): Promise<boolean> {
  let stamp: BuildStamp;
  try {
    stamp = JSON.parse(await readFile(join(outDir, STAMP_FILE), 'utf8')) as BuildStamp;
  } catch {
    return false;
  }
  if (stamp.version !== STAMP_VERSION || typeof stamp.inputs !== 'object' || Object.keys(stamp.inputs).length === 0) return false;
  const entries = Object.entries(stamp.inputs);
  const current = await Promise.all(entries.map(([file]) => hashFile(resolve(RENDERER_ROOT, file))));
  return entries.every(([, hash], index) => current[index] === hash);
}

/** Builds only when `outDir` holds no build of the current sources. Answers whether it built. */
export async function ensureRendererBuilt(outDir: string): Promise<boolean> {
  if (await isRendererBuildFresh(outDir)) return false;
  await buildRenderer(outDir);
  return true;
}
