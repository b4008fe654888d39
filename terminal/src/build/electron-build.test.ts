import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_HEADER } from '../host/csp.ts';
import { KIOSK_CONFIG_FILE } from '../main/kiosk-config.ts';
import { type ElectronBuild, MAIN_EXTERNALS, buildElectron, runtimeImports } from './electron-build.ts';

function withoutKeys(env: NodeJS.ProcessEnv, keys: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !keys.includes(key)));
}

const BUILT_INS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const BUILD_TOOLS = /(^|\/)node_modules\/(vite|@sveltejs|svelte\/src\/compiler|typescript|tsx|esbuild|rolldown|electron-builder|app-builder-lib|@electron\/fuses)\//;

describe('npm run build:electron: the kiosk app as electron-builder packages it', () => {
  let outDir: string;
  let built: ElectronBuild;
  let upstream: Server;
  let upstreamUrl: string;

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'tapline-electron-build-'));
    built = await buildElectron(outDir);
    upstream = createServer((request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: request.url })));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(outDir, { recursive: true, force: true });
  });

  it('writes the main process, the PC/SC driver, the preload, the first-start page and the renderer', () => {
    for (const file of ['main/index.js', 'main/pcsc-worker.js', 'main/printer-worker.js', 'main/package.json', 'preload/index.cjs', 'provision/index.html', 'provision/provision.js', 'provision/provision.css', 'renderer/index.html']) {
      assert.ok(existsSync(join(outDir, file)), file);
    }
    assert.deepEqual(JSON.parse(readFileSync(join(outDir, 'main/package.json'), 'utf8')), { type: 'module' });
    assert.deepEqual(Object.keys(built.inputs).sort(), ['main/index.js', 'main/pcsc-worker.js', 'main/printer-worker.js', 'preload/index.cjs', 'provision/provision.js']);
    assert.ok(built.inputs['main/printer-worker.js']!.some((input) => input.endsWith('hardware/src/printer/queued-printer.ts')), 'the printer process carries the durable queue');
    // The workspaces' sources are compiled in.
    assert.ok(built.inputs['main/index.js']!.some((input) => input.endsWith('hardware/src/bridge/host.ts')));
    assert.ok(built.inputs['main/index.js']!.some((input) => input.endsWith('terminal/src/host/server.ts')));
    assert.ok(built.inputs['main/index.js']!.some((input) => input.endsWith('shared/src/i18n/index.ts')));
  });

  it('needs no build tool, TypeScript source or package outside the packaged ones at run time', async () => {
    for (const [file, inputs] of Object.entries(built.inputs)) {
      assert.deepEqual(inputs.filter((input) => BUILD_TOOLS.test(input)), [], `${file} bundles a build tool`);
      assert.ok(!inputs.some((input) => input.endsWith('terminal/src/host/build.ts')), `${file} bundles the Vite build step`);
    }
    const allowed = new Set<string>([...MAIN_EXTERNALS.filter((name) => !name.includes('*'))]);
    for (const file of ['main/index.js', 'main/pcsc-worker.js', 'main/printer-worker.js']) {
      const text = readFileSync(join(outDir, file), 'utf8');
      const imports = await runtimeImports(join(outDir, file));
      assert.deepEqual(imports.filter((name) => !BUILT_INS.has(name) && !allowed.has(name) && !name.startsWith('@serialport/')), [], `${file} imports only Node, Electron and the packaged externals`);
      assert.doesNotMatch(text, /from\s*["'][^"']*\.ts["']|require\(["'][^"']*\.ts["']\)|import\(["'][^"']*\.ts["']\)/, `${file} imports no .ts file`);
      assert.doesNotMatch(text, /["'](vite|typescript|tsx|@sveltejs\/vite-plugin-svelte)["']/, `${file} names no build tool as a module`);
    }
    assert.deepEqual(await runtimeImports(join(outDir, 'main/index.js')).then((names) => names.filter((name) => !BUILT_INS.has(name))), ['bufferutil', 'electron', 'electron-updater', 'serialport', 'utf-8-validate']);
    assert.deepEqual(await runtimeImports(join(outDir, 'main/pcsc-worker.js')).then((names) => names.filter((name) => !BUILT_INS.has(name))), ['nfc-pcsc']);
    assert.deepEqual(await runtimeImports(join(outDir, 'main/printer-worker.js')).then((names) => names.filter((name) => !BUILT_INS.has(name))), ['serialport']);
  });

  it('makes the preload one CommonJS script that requires electron only', async () => {
    const preload = readFileSync(join(outDir, 'preload/index.cjs'), 'utf8');
    assert.deepEqual(await runtimeImports(join(outDir, 'preload/index.cjs')), ['electron']);
    assert.doesNotMatch(preload, /^\s*(import|export)\s/m, 'no ESM syntax: a sandboxed preload cannot load modules');
    assert.match(preload, /exposeInMainWorld\(/);
    assert.match(preload, /tapline:hardware/);
  });

  it('puts a Content-Security-Policy on the till page and on the first-start page', () => {
    const renderer = readFileSync(join(outDir, 'renderer/index.html'), 'utf8');
    assert.ok(renderer.includes(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />`));
    assert.ok(renderer.indexOf('Content-Security-Policy') < renderer.indexOf('<script'), 'before any script');
    assert.doesNotMatch(renderer, /<script>|<script type="module">/, 'no inline script, which the policy would refuse');
    const provision = readFileSync(join(outDir, 'provision/index.html'), 'utf8');
    assert.match(provision, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';/);
    assert.doesNotMatch(provision, /<script>/);
  });

  it('the built main process starts in Node against the stand-in for Electron: the till shown, the hardware through the built preload', async () => {
    const userDataDir = mkdtempSync(join(tmpdir(), 'tapline-electron-smoke-'));
    writeFileSync(join(userDataDir, KIOSK_CONFIG_FILE), JSON.stringify({ syncServerUrl: upstreamUrl, env: { NFC_READER: 'simulated', PRINTER: 'virtual', PRINTER_PAPER: '58' } }));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', '--import', fileURLToPath(new URL('./testing/run-bundle.ts', import.meta.url)), join(outDir, 'main/index.js')], {
        // The kiosk's settings come from its config file here, not from this shell.
        env: { ...withoutKeys(process.env, ['SYNC_SERVER_URL', 'NFC_READER', 'PRINTER', 'KIOSK']), SMOKE_DIST_DIR: outDir, SMOKE_USER_DATA: userDataDir, TERMINAL_PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const line = stdout.split('\n').find((text) => text.startsWith('SMOKE '));
      assert.ok(line, `no report (exit ${code}): ${stdout}\n${stderr}`);
      const result = JSON.parse(line.slice('SMOKE '.length)) as Record<string, unknown>;
      assert.equal(result.error, undefined, String(result.error));
      assert.equal(code, 0);
      assert.match(String(result.url), /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(result.loaded, [result.url]);
      assert.equal(result.preloadOption, join(outDir, 'preload/index.cjs'));
      assert.equal(result.status, 200);
      assert.equal(result.csp, CONTENT_SECURITY_POLICY_HEADER);
      assert.equal(result.hasApp, true, 'the shipped renderer is served');
      assert.deepEqual(result.exposed, ['taplineKiosk']);
      const hardware = result.hardware as { ok: boolean; result: { nfc: { driver: string; state: string }; printer: { printer: string } } };
      assert.equal(hardware.ok, true);
      assert.equal(hardware.result.nfc.driver, 'simulated');
      assert.equal(hardware.result.nfc.state, 'ready');
      assert.equal(hardware.result.printer.printer, 'virtual');
      // The receipt printed in the printer's utility process (the built printer-worker.js), whose
      // virtual printer wrote its preview into the data folder.
      assert.deepEqual(result.printed, { ok: true, result: { jobId: 'pos-smoke', state: 'printed' } });
      assert.deepEqual(result.forks, [join(outDir, 'main/printer-worker.js')]);
      assert.ok(existsSync(join(userDataDir, 'printer-preview', 'pos-payment-pos-smoke.bin')), 'the preview of the printed receipt');
      assert.equal((result.terminalConfig as { receipt: { paperWidth: number } }).receipt.paperWidth, 58);
      const info = result.info as { syncServerUrl: string; kiosk: boolean; packaged: boolean; updateChannel: string };
      assert.equal(info.syncServerUrl, upstreamUrl);
      assert.equal(info.kiosk, true);
      assert.equal(info.updateChannel, 'latest');
      assert.deepEqual(result.crashReporter, { uploadToServer: false, compress: true });
      assert.equal(result.menu, null);
      assert.equal(result.handlersLeft, 0);
      assert.equal(result.exited, true);
    } finally {
      rmSync(userDataDir, { recursive: true, force: true });
    }
  });
});
