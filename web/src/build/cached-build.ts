/**
 * A build kept until its sources change: the front ends the sync server serves (the dashboard,
 * the server's pages and the drop-in) each declare their source folders and recipe files, and
 * one SHA-256 over the names and contents of all of them, written next to the build, says
 * whether the build is current. Content, not modification times: a git checkout or a copy
 * resets mtimes, and a build must never be taken for fresh when its sources differ.
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CachedBuild {
  /** For log lines: "dashboard", "pages". */
  name: string;
  /** Folders whose every file (tests excepted) the build may read. */
  sourceDirs: string[];
  /** Single files that shape the output: the build script, package.json. */
  recipe: string[];
  /** Writes a complete build into `outDir`, which exists and is empty. */
  build(outDir: string): Promise<void>;
}

const STAMP = '.sources.sha256';

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** One SHA-256 over the names and contents of every source file: a changed, added or removed file changes it. */
export async function sourcesDigest(spec: Pick<CachedBuild, 'sourceDirs' | 'recipe'>): Promise<string> {
  const hash = createHash('sha256');
  const files = [...(await Promise.all(spec.sourceDirs.map(listFiles))).flat(), ...spec.recipe];
  for (const file of files) hash.update(file).update('\0').update(await readFile(file)).update('\0');
  return hash.digest('hex');
}

/**
 * Builds into a folder of its own, then puts it in place of `outDir`: a server reading `outDir`
 * meanwhile serves the previous build, never half of one, and two processes building at once
 * (test files run in parallel) each leave a whole build.
 */
export async function runBuild(spec: CachedBuild, outDir: string): Promise<void> {
  const digest = await sourcesDigest(spec);
  const staging = `${outDir.replace(/[\\/]+$/, '')}.building-${process.pid}-${Date.now()}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await spec.build(staging);
    await writeFile(join(staging, STAMP), `${digest}\n`);
    const old = `${staging}.old`;
    await rename(outDir, old).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(staging, outDir).catch((error: NodeJS.ErrnoException) => {
      // Another process put its build of the same sources in place meanwhile: keep that one.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Whether `outDir` holds a build of the current sources. */
export async function isBuildFresh(spec: CachedBuild, outDir: string): Promise<boolean> {
  const built = await readFile(join(outDir, STAMP), 'utf8').catch(() => '');
  return built.trim() === (await sourcesDigest(spec));
}

/** Builds only when `outDir` holds no build of the current sources; answers whether it built. */
export async function ensureBuilt(spec: CachedBuild, outDir: string): Promise<boolean> {
  if (await isBuildFresh(spec, outDir)) return false;
  await runBuild(spec, outDir);
  return true;
}

export interface BuildWatcher {
  /** Resolves once the rebuilds asked for so far are done (tests wait on it). */
  settled(): Promise<void>;
  close(): void;
}

/**
 * Rebuilds `outDir` after a change to any source (Node's recursive fs.watch), at most one build
 * at a time: changes made during a build start one more when it ends. The digest decides, so a
 * save that changes nothing builds nothing. Failures are reported, and the previous build stays.
 */
export function watchAndRebuild(spec: CachedBuild, outDir: string, report: (message: string) => void = console.log): BuildWatcher {
  let running: Promise<void> = Promise.resolve();
  let queued = false;
  let timer: NodeJS.Timeout | undefined;
  let pending = false;
  const rebuild = () => {
    pending = false;
    if (queued) return;
    queued = true;
    running = running.then(async () => {
      queued = false;
      const started = Date.now();
      try {
        if (await ensureBuilt(spec, outDir)) report(`${spec.name} rebuilt in ${Date.now() - started} ms`);
      } catch (error) {
        report(`${spec.name} build failed, the previous build is still served: ${(error as Error).message}`);
      }
    });
  };
  // Editors write a file in several steps: wait for the burst to end.
  const changed = () => {
    clearTimeout(timer);
    pending = true;
    timer = setTimeout(rebuild, 150);
  };
  const watchers: FSWatcher[] = [...spec.sourceDirs.map((dir) => watch(dir, { recursive: true }, changed)), ...spec.recipe.map((file) => watch(file, changed))];
  return {
    async settled() {
      // A change whose debounce is still pending counts as asked for.
      while (pending) await new Promise((resolve) => setTimeout(resolve, 50));
      await running;
    },
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
