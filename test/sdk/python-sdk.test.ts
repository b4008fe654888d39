// The Python SDK (sdk/python): its unittest suite with the machine's python3, against a real
// server the Python tests start themselves (sdk/python/tests/server.py), once on PGlite and once
// on a fresh PostgreSQL database; and its types checked by pyright in strict mode for Python 3.9.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createPostgresDatabase, databaseTargets } from '@tapline/sync-server/testing';
import { repositoryRoot } from './installed-sdk.ts';

const PYTHON_SDK = join(repositoryRoot, 'sdk', 'python');

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = repositoryRoot): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

for (const target of await databaseTargets()) {
  describe(`Python SDK against the server on ${target.name}`, () => {
    it('passes its unittest suite (python3 -m unittest)', { timeout: 300_000 }, async () => {
      const env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: join(PYTHON_SDK, 'src'), PYTHONDONTWRITEBYTECODE: '1' };
      delete env.TAPLINE_TEST_DATABASE_URL;
      const database = target.name === 'postgres' ? await createPostgresDatabase() : undefined;
      if (database) env.TAPLINE_TEST_DATABASE_URL = database.url;
      try {
        const result = await run('python3', ['-m', 'unittest', 'discover', '-v', '-s', join(PYTHON_SDK, 'tests'), '-t', PYTHON_SDK], env);
        assert.equal(result.code, 0, result.output);
        const ran = Number(/Ran (\d+) tests?/.exec(result.output)?.[1] ?? 0);
        assert.ok(ran >= 13, `only ${ran} Python tests ran:\n${result.output}`);
        assert.match(result.output, /test_a_409_idempotency_in_progress_is_retried_with_the_same_key_and_charged_once .* \.\.\. ok/);
        assert.match(result.output, /\nOK\s*$/);
        assert.doesNotMatch(result.output, /skipped/);
      } finally {
        await database?.drop();
      }
    });
  });
}

describe('Python SDK types', () => {
  it('pass pyright in strict mode for Python 3.9 (sdk/python/pyproject.toml)', { timeout: 120_000 }, async () => {
    const result = await run(join(repositoryRoot, 'node_modules', '.bin', 'pyright'), ['--outputjson'], process.env, PYTHON_SDK);
    const report = JSON.parse(result.output) as { summary: { errorCount: number; warningCount: number; filesAnalyzed: number }; generalDiagnostics: { file: string; message: string }[] };
    assert.deepEqual(report.generalDiagnostics.map((diagnostic) => `${diagnostic.file}: ${diagnostic.message}`), []);
    assert.equal(report.summary.errorCount, 0);
    assert.ok(report.summary.filesAnalyzed >= 10);
  });
});
