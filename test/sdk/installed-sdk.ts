// The TypeScript SDK as a user installs it: built with its publishing config (tsc ->
// dist/*.js + *.d.ts) into a node_modules/@tapline/sdk of a temporary folder, with its
// package.json and README, so tests import '@tapline/sdk' exactly as an application would.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const sdkRoot = join(repositoryRoot, 'sdk', 'typescript');

/** Builds the SDK into `<folder>/node_modules/@tapline/sdk`; answers the folder and the package's own. */
export async function installSdk(): Promise<{ folder: string; packageFolder: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'tapline-sdk-'));
  const packageFolder = join(folder, 'node_modules', '@tapline', 'sdk');
  mkdirSync(packageFolder, { recursive: true });
  const tsc = join(repositoryRoot, 'node_modules', '.bin', 'tsc');
  await promisify(execFile)(tsc, ['-p', join(sdkRoot, 'tsconfig.build.json'), '--outDir', join(packageFolder, 'dist')]);
  for (const file of ['package.json', 'README.md']) copyFileSync(join(sdkRoot, file), join(packageFolder, file));
  return { folder, packageFolder };
}
