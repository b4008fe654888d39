import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

let bundled: Promise<string> | undefined;

/**
 * /web/i18n.js: browser/page-i18n.ts with the shared translator (i18next) and money format,
 * bundled by esbuild into one ES2020 script the first time a page asks for it (about 50 ms),
 * then kept for the life of the process. The pages' own scripts stay plain files; only this one
 * is built, so they format money and sentences with exactly the code the kiosk and receipts use.
 */
export function pageI18nScript(): Promise<string> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL('./browser/page-i18n.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  }).then(
    (result) => result.outputFiles[0]?.text ?? '',
    (error: unknown) => {
      bundled = undefined;
      throw error;
    },
  );
  return bundled;
}
