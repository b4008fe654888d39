import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createPostgresDatabase, databaseTargets } from './testing/databases.ts';
import { exitOf, spawnServerProcess, startServerProcess } from './testing/server-process.ts';

const targets = await databaseTargets();

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

  it('refuses bad secrets and secret files all at once, one line each, without printing a secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-main-secrets-'));
    try {
      const both = join(dir, 'admin-token');
      writeFileSync(both, 'abcdefghijklmnopqrstuvwxyz-file-secret\n', { mode: 0o600 });
      const child = spawnServerProcess({
        DATA_DIR: dir,
        ADMIN_TOKEN: 'abcdefghijklmnopqrstuvwxyz-env-secret',
        ADMIN_TOKEN_FILE: both,
        SECRETS_KEY_FILE: join(dir, 'missing-key'),
        DATABASE_URL: 'mysql://root:hunter2-secret@db/tapline',
        PAYSTACK_SECRET_KEY: 'sk_live_paystack-secret',
        PAYSTACK_BASE_URL: 'not a url',
        RATE_LIMIT_SCALE: '0',
      });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      assert.equal(await exitOf(child), 2);
      const lines = output.split('\n').filter((line) => line.startsWith('  - '));
      assert.deepEqual(lines, [
        `  - SECRETS_KEY_FILE=${join(dir, 'missing-key')}: cannot read the file (no such file)`,
        '  - ADMIN_TOKEN and ADMIN_TOKEN_FILE are both set: set only one of them',
        '  - DATABASE_URL must be a postgres:// or postgresql:// connection string (unset it to use the embedded database), got a value not shown (a secret)',
        '  - RATE_LIMIT_SCALE must be a number from 0.001 to 1000, got "0"',
        '  - PAYSTACK_BASE_URL must be an http(s) URL, got "not a url"',
      ], output);
      for (const secret of ['env-secret', 'file-secret', 'hunter2', 'paystack-secret']) assert.ok(!output.includes(secret), `${secret} printed:\n${output}`);
      assert.equal(existsSync(join(dir, 'tapline.lock')), false, 'refused before the database was opened');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const target of targets) {
    it(`on ${target.name}: takes its secrets from NAME_FILE (systemd credentials), warns of a mistyped variable, prints no secret`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tapline-main-files-'));
      const postgres = target.name === 'postgres' ? await createPostgresDatabase() : undefined;
      try {
        const credential = (name: string, value: string) => {
          const path = join(dir, name);
          writeFileSync(path, `${value}\n`, { mode: 0o600 });
          return path;
        };
        const token = 'from-a-file-0123456789abcdefghij';
        const env: Record<string, string> = {
          LOG_LEVEL: 'info',
          DATA_DIR: join(dir, 'data'),
          ADMIN_TOKEN_FILE: credential('admin-token', token),
          SECRETS_KEY_FILE: credential('secrets-key', '5e'.repeat(32)),
          PAYSTACK_SECRET_KEY_FILE: credential('paystack', 'sk_test_from_a_file'),
          TAPLINE_ADMIN_TOKEN: 'mistyped',
          DATABASE_URL: '',
        };
        // DATABASE_URL stays blank (blank counts as unset), so one inherited from the shell cannot interfere.
        if (postgres) env.DATABASE_URL_FILE = credential('database-url', postgres.url);
        const server = await startServerProcess(env);
        assert.match(server.output(), /Configuration warning: TAPLINE_ADMIN_TOKEN is not a Tapline setting and is ignored/);
        assert.doesNotMatch(server.output(), /Admin token \(shown once/, 'the token came from its file: none generated');
        assert.match(server.output(), postgres ? /database: PostgreSQL/ : /database: embedded PGlite/);
        const listed = await fetch(`${server.url}/api/admin/merchants`, { headers: { authorization: `Bearer admin.${token}` } });
        assert.equal(listed.status, 200);
        const ready = (await (await fetch(`${server.url}/api/health/ready`)).json()) as { ready: boolean; providers: string[] };
        assert.equal(ready.ready, true);
        assert.ok(ready.providers.includes('paystack'), 'Paystack configured from its key file');
        server.child.kill('SIGTERM');
        assert.equal(await exitOf(server.child), 0);
        for (const secret of [token, '5e'.repeat(32), 'sk_test_from_a_file', ...(postgres ? [postgres.url] : [])]) assert.ok(!server.output().includes(secret), 'no secret in the output');
      } finally {
        await postgres?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
