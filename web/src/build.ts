/**
 * The server's pages and the checkout drop-in, built by Vite into one folder the sync server
 * serves (WEB_DIR, default web/dist):
 *
 *   pages/pos.js, pay.js, offline-qr.js, wallet.js     ES modules (shared code in pages/chunks/), at /web/
 *   style.css                                          the pages' stylesheet (web/public), at /web/style.css
 *   sdk/service.js                                     the drop-in, one standalone IIFE, at /sdk/service.js
 *
 * Kept until a source changes (build/cached-build.ts, the same mechanism as the dashboard's).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { type CachedBuild, ensureBuilt, runBuild, watchAndRebuild } from './build/cached-build.ts';
import { countryCurrencies, currencyExponents } from './build/currency-exponents.ts';
import { dropInWordsDefine } from './build/drop-in-words.ts';

export const WEB_SRC = fileURLToPath(new URL('./', import.meta.url));
export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
const SHARED_SRC = fileURLToPath(new URL('../../shared/src/', import.meta.url));
const PACKAGE_JSON = fileURLToPath(new URL('../package.json', import.meta.url));

/** The page scripts: /web/<name>.js. */
export const PAGES = ['pos', 'pay', 'offline-qr', 'wallet'] as const;
/** Browsers the pages and the drop-in must run in: phones of the last few years, and the kiosk's Chromium. */
const TARGET = ['es2020', 'chrome90', 'safari14', 'firefox90'];

/** The pages: one ES module per page, what they share in chunks/ (same names every build: the server sends no-cache). */
async function buildPages(outDir: string, srcDir: string): Promise<void> {
  await build({
    configFile: false,
    root: srcDir,
    logLevel: 'warn',
    publicDir: PUBLIC_DIR,
    plugins: [currencyExponents(), countryCurrencies()],
    build: {
      outDir,
      emptyOutDir: false,
      target: TARGET,
      reportCompressedSize: false,
      modulePreload: false,
      rollupOptions: {
        input: Object.fromEntries(PAGES.map((name) => [name, `${srcDir}pages/${name}.ts`])),
        output: { entryFileNames: 'pages/[name].js', chunkFileNames: 'pages/chunks/[name].js', format: 'es' },
      },
    },
  });
}

/** The drop-in: one IIFE with everything inlined, nothing else loaded from our origin. */
async function buildDropIn(outDir: string, srcDir: string): Promise<void> {
  await build({
    configFile: false,
    root: srcDir,
    logLevel: 'warn',
    publicDir: false,
    plugins: [currencyExponents(), countryCurrencies()],
    // Its words in every language the pages speak, and only its own (build/drop-in-words.ts).
    define: dropInWordsDefine(),
    build: {
      outDir: `${outDir}/sdk`,
      emptyOutDir: false,
      target: TARGET,
      reportCompressedSize: false,
      lib: { entry: `${srcDir}sdk/service.ts`, formats: ['iife'], name: 'TaplineDropIn', fileName: () => 'service.js' },
    },
  });
}

/** What the cache hashes and how it builds; `srcDir` is another copy of web/src (a test's). */
export function webBuild(srcDir: string = WEB_SRC): CachedBuild {
  return {
    name: 'pages and drop-in',
    sourceDirs: [srcDir, PUBLIC_DIR, SHARED_SRC],
    recipe: [fileURLToPath(import.meta.url), ...['./build/cached-build.ts', './build/currency-exponents.ts', './build/drop-in-words.ts'].map((file) => fileURLToPath(new URL(file, import.meta.url))), PACKAGE_JSON],
    async build(outDir) {
      await buildPages(outDir, srcDir);
      await buildDropIn(outDir, srcDir);
    },
  };
}

export function buildWeb(outDir: string = DEFAULT_WEB_DIST): Promise<void> {
  return runBuild(webBuild(), outDir);
}

/** Builds only when `outDir` holds no build of the current sources; answers whether it built. */
export function ensureWebBuilt(outDir: string = DEFAULT_WEB_DIST, srcDir: string = WEB_SRC): Promise<boolean> {
  return ensureBuilt(webBuild(srcDir), outDir);
}

/** `npm start`: rebuilds after a change to any source while the server runs. */
export function watchWeb(outDir: string = DEFAULT_WEB_DIST, srcDir: string = WEB_SRC, report?: (message: string) => void) {
  return watchAndRebuild(webBuild(srcDir), outDir, report);
}
