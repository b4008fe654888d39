// `npm run hardware -- print-test` as a user runs it with DATA_DIR set: the virtual printer's
// preview lands in $DATA_DIR/printer-preview, not in ./data of the folder it was started from.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

describe('the hardware CLI with DATA_DIR', () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('writes the virtual printer\'s previews under $DATA_DIR/printer-preview', { timeout: 120_000 }, async () => {
    const started = mkdtempSync(join(tmpdir(), 'tapline-cwd-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'tapline-data-'));
    folders.push(started, dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PRINTER: 'virtual' };
    delete env.PRINTER_PREVIEW_DIR;
    delete env.PRINTER_QUEUE_DIR;
    const { stdout } = await run(process.execPath, ['--import', TSX, CLI, 'print-test', 'pos-payment'], { cwd: started, env, timeout: 110_000 });
    const previews = join(dataDir, 'printer-preview');
    assert.match(stdout, new RegExp(`virtual \\(previews in ${previews.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    const files = readdirSync(previews);
    const svg = files.find((file) => file.endsWith('.svg'));
    assert.ok(svg, `no SVG preview in ${previews}: ${files.join(', ')}`);
    assert.match(readFileSync(join(previews, svg), 'utf8'), /<svg/);
    assert.equal(existsSync(join(started, 'data')), false, 'nothing written to ./data of the folder it started in');
  });
});

// `npm run hardware -- drawer`, as an installer runs it to check the drawer's pin and sensor.
describe('the hardware CLI drawer command', () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('kicks the cash drawer and reads it back (the virtual printer\'s drawer is open after a kick)', { timeout: 120_000 }, async () => {
    const started = mkdtempSync(join(tmpdir(), 'tapline-cwd-'));
    folders.push(started);
    const env: NodeJS.ProcessEnv = { ...process.env, PRINTER: 'virtual', PRINTER_DRAWER_PIN: '5', PRINTER_DRAWER_OPEN_WHEN: 'high' };
    const { stdout } = await run(process.execPath, ['--import', TSX, CLI, 'drawer'], { cwd: started, env, timeout: 110_000 });
    assert.match(stdout, /^Cash drawer on virtual .*: kick on pin 5, open when pin 3 is high$/m);
    assert.match(stdout, /^ {2}kicked; the drawer reads open$/m);
  });
});
