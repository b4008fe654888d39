import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const mainFile = fileURLToPath(new URL('./main.ts', import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `npm run server`'s entry point on a free port and waits for its URL line. */
const children = new Set<ChildProcess>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

function startServer(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', mainFile], { env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the server process', () => {
  it('starts on the embedded database, prints a generated admin token once, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tapline-main-'));
    const first = await startServer({ DATA_DIR: dataDir });
    const token = /Admin token[^\n]*: (admin\.[0-9a-f]{64})/.exec(first.output())?.[1];
    assert.ok(token, first.output());
    const listed = await fetch(`${first.url}/api/admin/merchants`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(listed.status, 200);
    assert.ok(existsSync(join(dataDir, 'tapline.lock')));

    // A second process must not open the same embedded database directory.
    const second = spawn(process.execPath, ['--import', 'tsx', mainFile], { env: { ...process.env, PORT: '0', DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(second);
    let secondOutput = '';
    second.stderr.on('data', (chunk: Buffer) => (secondOutput += chunk.toString()));
    assert.equal(await exitOf(second), 1);
    assert.match(secondOutput, /is in use by process \d+/);

    // An in-flight request finishes before the process exits.
    const inFlight = fetch(`${first.url}/api/health`);
    first.child.kill('SIGTERM');
    const [health, code] = await Promise.all([inFlight, exitOf(first.child)]);
    assert.equal(health.status, 200);
    assert.equal(code, 0);
    assert.match(first.output(), /SIGTERM received/);
    assert.equal(existsSync(join(dataDir, 'tapline.lock')), false, 'the database closed and released its lock');

    // The token was stored hashed: a restart prints no token and the old one still works.
    const again = await startServer({ DATA_DIR: dataDir });
    assert.doesNotMatch(again.output(), /Admin token/);
    const relisted = await fetch(`${again.url}/api/admin/merchants`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(relisted.status, 200);
    again.child.kill('SIGINT');
    assert.equal(await exitOf(again.child), 0);
  });

  it('refuses a bad configuration with a clear message and exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', mainFile], { env: { ...process.env, PORT: '99999', LOG_LEVEL: 'chatty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    assert.equal(await exitOf(child), 2);
    assert.match(output, /Invalid configuration/);
    assert.match(output, /PORT must be an integer from 0 to 65535/);
    assert.match(output, /LOG_LEVEL must be one of/);
  });
});
