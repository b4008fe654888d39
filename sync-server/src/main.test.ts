import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { exitOf, spawnServerProcess, startServerProcess } from './testing/server-process.ts';

describe('the server process', () => {
  it('starts on the embedded database, prints a generated admin token once, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tapline-main-'));
    const first = await startServerProcess({ LOG_LEVEL: 'warn', DATA_DIR: dataDir });
    // What a new user copies: the token npm start printed, prefixed with admin. as the README says.
    const printed = /^Admin token[^\n]*: ([0-9a-f]{64})$/m.exec(first.output())?.[1];
    assert.ok(printed, first.output());
    assert.match(first.output(), new RegExp(`^Send it as: Authorization: Bearer admin\\.${printed}$`, 'm'));
    const token = `admin.${printed}`;
    const listed = await fetch(`${first.url}/api/admin/merchants`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(listed.status, 200);
    assert.ok(existsSync(join(dataDir, 'tapline.lock')));

    // A second process must not open the same embedded database directory.
    const second = spawnServerProcess({ DATA_DIR: dataDir });
    let secondOutput = '';
    second.stderr?.on('data', (chunk: Buffer) => (secondOutput += chunk.toString()));
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
    const again = await startServerProcess({ LOG_LEVEL: 'warn', DATA_DIR: dataDir });
    assert.doesNotMatch(again.output(), /Admin token/);
    const relisted = await fetch(`${again.url}/api/admin/merchants`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(relisted.status, 200);
    again.child.kill('SIGINT');
    assert.equal(await exitOf(again.child), 0);
  });

  it('refuses a bad configuration with a clear message and exit code 2', async () => {
    const child = spawnServerProcess({ PORT: '99999', LOG_LEVEL: 'chatty' });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    assert.equal(await exitOf(child), 2);
    assert.match(output, /Invalid configuration/);
    assert.match(output, /PORT must be an integer from 0 to 65535/);
    assert.match(output, /LOG_LEVEL must be one of/);
  });
});
