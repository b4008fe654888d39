// The production server: sync-server/src/main.ts and the workspace code it imports (@tapline/shared)
// bundled by esbuild into one ES module, sync-server/dist/main.js, that plain `node` runs without
// tsx or any development dependency. Packages from npm stay outside the bundle and load from
// node_modules (`npm ci --omit=dev` installs them); the build refuses one that is not a run-time
// dependency of the server or of shared, so a production install can never miss it. The SQL the
// server migrates with and the LICENSE it serves are copied beside the bundle.
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Plugin, build } from 'esbuild';

/** sync-server/dist: main.js, its source map, migrations/, functions/, LICENSE. */
export const SERVER_DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url));

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The package a bare import names: `pg`, `@fastify/swagger`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Every bare import but the workspace's own packages stays outside the bundle (a node_modules import at run time). */
function packagesOutside(): Plugin {
  return {
    name: 'packages-outside',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@tapline/')) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

async function runtimeDependencies(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const manifest of ['../../package.json', '../../../shared/package.json']) {
    const parsed = JSON.parse(await readFile(source(manifest), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(parsed.dependencies ?? {})) if (!name.startsWith('@tapline/')) names.add(name);
  }
  return names;
}

export interface ServerBuild {
  outDir: string;
  /** The npm packages the bundle imports at run time. */
  packages: string[];
  /** Source files bundled. */
  modules: number;
}

export async function buildServer(outDir = SERVER_DIST_DIR): Promise<ServerBuild> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: { main: source('../main.ts') },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    plugins: [packagesOutside()],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  const imported = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const entry of output.imports) if (entry.external && !BUILTINS.has(entry.path)) imported.add(packageOf(entry.path));
  }
  const allowed = await runtimeDependencies();
  const missing = [...imported].filter((name) => !allowed.has(name)).sort();
  if (missing.length > 0) {
    throw new Error(`the server imports ${missing.join(', ')} at run time, but neither sync-server nor shared lists it in "dependencies": a production install would not have it`);
  }
  // db/migrate.ts reads ./migrations/ and ./functions/ beside the module that runs it.
  await cp(source('../db/migrations/'), join(outDir, 'migrations'), { recursive: true });
  await cp(source('../db/functions/'), join(outDir, 'functions'), { recursive: true });
  await cp(source('../../../LICENSE'), join(outDir, 'LICENSE'));
  return { outDir, packages: [...imported].sort(), modules: Object.keys(result.metafile.inputs).length };
}
