// electron-builder.yml, as far as it can be checked without the Electron binary: validated with
// electron-builder's own schema, then `electron-builder --linux --dir` run for real on a stand-in
// Electron distribution (electronDist: a folder with a placeholder executable), which packages
// the built app into app.asar exactly as a release does. Two steps need the real binary and
// Electron's headers and are switched off here only: flipping the fuses (they are written into
// the executable) and rebuilding the native drivers for Electron (npmRebuild).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ELECTRON_DIST_DIR, buildElectron } from './electron-build.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const UPDATE_URL = 'https://updates.test.example/terminal';
const require = createRequire(import.meta.url);
const yaml = require(require.resolve('js-yaml', { paths: [require.resolve('app-builder-lib')] })) as { load(text: string): unknown; dump(value: unknown): string };
const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as { validateConfiguration(config: unknown, logger: unknown): Promise<void> };
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
const asar = require('@electron/asar') as { listPackage(path: string): string[]; extractFile(path: string, file: string): Buffer };

interface BuilderConfig {
  directories: { app: string; output: string };
  files: string[];
  extraMetadata: { main: string };
  asar: boolean;
  asarUnpack: string[];
  npmRebuild: boolean;
  electronFuses: Record<string, boolean>;
  publish: { provider: string; url: string; channel?: string };
  generateUpdatesFilesForAllChannels?: boolean;
  linux: { target: string[]; executableName: string };
  deb: { depends: string[] };
  win: { target: string[] };
  nsis: { oneClick: boolean; perMachine: boolean };
}

const config = yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;

describe('electron-builder.yml', () => {
  it("is valid for electron-builder's schema", async () => {
    await validateConfiguration(structuredClone(config), new DebugLogger(false));
    await assert.rejects(validateConfiguration({ ...structuredClone(config), electronFuses: { runAsNod: false } }, new DebugLogger(false)), /electronFuses/, 'a misspelt fuse is refused');
  });

  it('packages the built app from terminal/ with its native drivers unpacked, Linux and Windows targets, generic updates and fuses', () => {
    assert.equal(config.directories.app, 'terminal');
    assert.equal(config.extraMetadata.main, 'dist/main/index.js');
    for (const folder of ['main', 'preload', 'provision', 'renderer']) assert.ok(config.files.includes(`dist/${folder}/**/*`), folder);
    assert.ok(config.files.includes('!**/*.map'));
    assert.equal(config.asar, true);
    assert.deepEqual(config.asarUnpack, ['**/node_modules/@pokusew/pcsclite/**', '**/node_modules/@serialport/bindings-cpp/**']);
    assert.equal(config.npmRebuild, true);
    assert.deepEqual(config.linux.target, ['AppImage', 'deb']);
    assert.ok(config.deb.depends.includes('pcscd') && config.deb.depends.includes('libpcsclite1'));
    assert.ok(config.deb.depends.includes('libgtk-3-0') && config.deb.depends.includes('libnss3'), "Electron's own dependencies are kept");
    assert.deepEqual(config.win.target, ['nsis']);
    assert.equal(config.nsis.perMachine, true);
    assert.equal(config.publish.provider, 'generic');
    // No address in the repository: the release machine's TAPLINE_UPDATE_URL; no fixed channel (the version's).
    assert.equal(config.publish.url, '${env.TAPLINE_UPDATE_URL}');
    assert.equal(config.publish.channel, undefined);
    assert.equal(config.generateUpdatesFilesForAllChannels, true);
    assert.deepEqual(config.electronFuses, {
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  describe('electron-builder --linux --dir on a stand-in Electron distribution', () => {
    let work: string;
    let resources: string;
    let contents: string[];

    before(async () => {
      // electron-builder packages terminal/dist: build it there, as npm run build:electron does.
      await buildElectron(ELECTRON_DIST_DIR);
      work = mkdtempSync(join(tmpdir(), 'tapline-electron-builder-'));
      const electronDist = join(work, 'electron-dist');
      mkdirSync(join(electronDist, 'resources'), { recursive: true });
      writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\necho "stand-in for the Electron binary"\n');
      chmodSync(join(electronDist, 'electron'), 0o755);
      writeFileSync(join(electronDist, 'LICENSE'), 'MIT');
      writeFileSync(join(electronDist, 'version'), '40.8.5');
      const { electronFuses: _fuses, ...rest } = structuredClone(config);
      const testConfig = { ...rest, npmRebuild: false, electronDist, electronVersion: '40.8.5', directories: { ...config.directories, output: join(work, 'out') } };
      writeFileSync(join(work, 'electron-builder.yml'), yaml.dump(testConfig));
      const cli = require.resolve('electron-builder/cli.js');
      const result = spawnSync(process.execPath, [cli, '--config', join(work, 'electron-builder.yml'), '--projectDir', ROOT, '--linux', '--dir', '--publish', 'never'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: 'true', TAPLINE_UPDATE_URL: UPDATE_URL } });
      assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
      resources = join(work, 'out', 'linux-unpacked', 'resources');
      contents = asar.listPackage(join(resources, 'app.asar'));
    });
    after(() => rmSync(work, { recursive: true, force: true }));

    it('puts the bundles and the run-time dependencies in app.asar, and nothing of the build or the renderer sources', () => {
      assert.ok(existsSync(join(work, 'out', 'linux-unpacked', 'tapline-terminal')), 'the executable is named tapline-terminal');
      for (const file of ['/dist/main/index.js', '/dist/main/pcsc-worker.js', '/dist/main/printer-worker.js', '/dist/main/package.json', '/dist/preload/index.cjs', '/dist/provision/index.html', '/dist/provision/provision.js', '/dist/renderer/index.html', '/package.json']) {
        assert.ok(contents.includes(file), file);
      }
      assert.ok(!contents.some((file) => file.endsWith('.map')), 'no source maps');
      assert.ok(!contents.some((file) => file.startsWith('/src/')), 'no TypeScript sources');
      const packages = new Set(contents.filter((file) => file.startsWith('/node_modules/')).map((file) => file.split('/').slice(2, file.split('/')[2]!.startsWith('@') ? 4 : 3).join('/')));
      for (const needed of ['serialport', 'nfc-pcsc', 'electron-updater', '@pokusew/pcsclite', '@serialport/bindings-cpp']) assert.ok(packages.has(needed), needed);
      for (const excluded of ['vite', 'svelte', 'rxdb', 'rxjs', 'socket.io-client', 'typescript', 'tsx', 'esbuild', 'electron', 'electron-builder', '@electron/fuses', '@sveltejs/vite-plugin-svelte', '@tapline/hardware', '@tapline/shared', 'dexie', 'playwright-core']) {
        assert.ok(!packages.has(excluded), `${excluded} must not be packaged`);
      }
      const packageJson = JSON.parse(asar.extractFile(join(resources, 'app.asar'), 'package.json').toString()) as { main: string; type: string };
      assert.equal(packageJson.main, 'dist/main/index.js');
      assert.equal(packageJson.type, 'module');
    });

    it('unpacks the native drivers and writes the update feed', () => {
      assert.ok(existsSync(join(resources, 'app.asar.unpacked', 'node_modules', '@pokusew', 'pcsclite', 'package.json')));
      assert.ok(existsSync(join(resources, 'app.asar.unpacked', 'node_modules', '@serialport', 'bindings-cpp', 'package.json')));
      const feed = yaml.load(readFileSync(join(resources, 'app-update.yml'), 'utf8')) as Record<string, string>;
      assert.equal(feed.provider, 'generic');
      assert.equal(feed.url, UPDATE_URL, 'the address the release machine gave');
      assert.equal(feed.channel, undefined, "0.1.0 is a stable version: electron-updater's default channel (latest)");
    });
  });
});
