// The quick starts of docs/ run as written: every ```ts file=... and ```python file=... block of
// docs/quickstart-typescript.md and docs/quickstart-python.md is written to a folder (the
// TypeScript SDK installed there as npm would, the Python one on PYTHONPATH), type-checked (tsc,
// pyright), and run against a real server on each database: the first payment completes, the POS
// session is paid by the ring, the webhook receiver verifies a payment.completed and refuses a
// forgery.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type TestServer, balanceMinor, databaseTargets, freePort, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { installSdk, repositoryRoot } from './installed-sdk.ts';

interface Block {
  file: string;
  code: string;
}

/** The code blocks of a page that name a file: ```ts file=first-payment.ts */
function blocksOf(page: string, language: string): Block[] {
  const text = readFileSync(join(repositoryRoot, 'docs', page), 'utf8');
  return [...text.matchAll(new RegExp(`\`\`\`${language} file=(\\S+)\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => ({ file: match[1]!, code: match[2]! }));
}

interface Running {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the output matches, with the match. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Running {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exit,
    waitFor(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} in:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

async function runToEnd(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const running = start(command, args, options);
  const code = await running.exit;
  assert.equal(code, 0, `${args.join(' ')} failed:\n${running.output()}`);
  return running.output();
}

/** A merchant, a funded customer wallet and the customer's ring: what the quick starts assume. */
async function sandbox(s: TestServer) {
  const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
  const customer = uniqueHandle('ada');
  await s.createWallet({ handle: customer, fund: 20_000 });
  const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { handle: customer, tagType: 'ring', displayName: 'Ada ring' } });
  assert.equal(tag.status, 201);
  return { merchant, customer, tagId: tag.body.tagId };
}

const TYPESCRIPT = blocksOf('quickstart-typescript.md', 'ts');
const PYTHON = blocksOf('quickstart-python.md', 'python');

describe('quick start pages', () => {
  it('have the three programs each', () => {
    assert.deepEqual(TYPESCRIPT.map((block) => block.file), ['first-payment.ts', 'pos-session.ts', 'webhooks.ts']);
    assert.deepEqual(PYTHON.map((block) => block.file), ['first_payment.py', 'pos_session.py', 'webhooks.py']);
  });
});

let installed: { folder: string; packageFolder: string };
let pythonFolder: string;
before(async () => {
  installed = await installSdk();
  writeFileSync(join(installed.folder, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  for (const block of TYPESCRIPT) writeFileSync(join(installed.folder, block.file), block.code);
  pythonFolder = join(installed.folder, 'python');
  mkdirSync(pythonFolder);
  for (const block of PYTHON) writeFileSync(join(pythonFolder, block.file), block.code);
});
after(() => {
  if (installed) rmSync(installed.folder, { recursive: true, force: true });
});

describe('quick start code type-checks', () => {
  it('TypeScript: tsc strict against the installed package\'s declarations', async () => {
    writeFileSync(
      join(installed.folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(repositoryRoot, 'node_modules', '@types')] },
        files: TYPESCRIPT.map((block) => block.file),
      }),
    );
    await runToEnd(join(repositoryRoot, 'node_modules', '.bin', 'tsc'), ['-p', join(installed.folder, 'tsconfig.json')], { cwd: installed.folder, env: process.env });
  });

  it('Python: pyright for 3.9 against the package', async () => {
    writeFileSync(join(pythonFolder, 'pyrightconfig.json'), JSON.stringify({ pythonVersion: '3.9', extraPaths: [join(repositoryRoot, 'sdk', 'python', 'src')], typeCheckingMode: 'standard' }));
    const output = await runToEnd(join(repositoryRoot, 'node_modules', '.bin', 'pyright'), [], { cwd: pythonFolder, env: process.env });
    assert.match(output, /0 errors/);
  });
});

for (const target of await databaseTargets()) {
  describe(`quick starts against the server on ${target.name}`, () => {
    const server = useTestServer(target, { backgroundJobs: true, env: { SANDBOX_STEP_MS: '100', SCHEDULER_POLL_MS: '20', WEBHOOK_POLL_MS: '50' } });

    const languages = [
      {
        name: 'TypeScript',
        folder: () => installed.folder,
        command: (file: string) => [process.execPath, ['--import', 'tsx', join(installed.folder, file)]] as const,
        files: { payment: 'first-payment.ts', pos: 'pos-session.ts', webhooks: 'webhooks.ts' },
        env: {},
      },
      {
        name: 'Python',
        folder: () => pythonFolder,
        command: (file: string) => ['python3', [join(pythonFolder, file)]] as const,
        files: { payment: 'first_payment.py', pos: 'pos_session.py', webhooks: 'webhooks.py' },
        env: { PYTHONPATH: join(repositoryRoot, 'sdk', 'python', 'src'), PYTHONDONTWRITEBYTECODE: '1' },
      },
    ];

    for (const language of languages) {
      it(`${language.name}: a first payment, a POS session paid by a tap, a verified webhook`, { timeout: 120_000 }, async () => {
        const s = server();
        const { merchant, customer, tagId } = await sandbox(s);
        const port = await freePort();
        // The programs run from the repository (so `--import tsx` resolves) on files in the folder.
        const options = {
          cwd: repositoryRoot,
          env: { ...process.env, ...language.env, TAPLINE_URL: s.baseUrl, TAPLINE_KEY: merchant.testKey, TAPLINE_TAG: tagId, TAPLINE_WEBHOOK_SECRET: merchant.webhookSecret, PORT: String(port) },
        };
        const run = (file: string) => {
          const [command, args] = language.command(file);
          return runToEnd(command, [...args], options);
        };

        // The webhook receiver first, so that the payment's event reaches it.
        const [command, args] = language.command(language.files.webhooks);
        const receiver = start(command, [...args], options);
        try {
          await receiver.waitFor(new RegExp(`listening on ${port}`));

          const paid = await run(language.files.payment);
          const created = /payment (pay_[\w-]+) pending: [\d.]+ KES, fee [\d.]+ NGN/.exec(paid);
          assert.ok(created, paid);
          assert.match(paid, new RegExp(`payment ${created[1]} completed`));

          await receiver.waitFor(/verified payment\.completed evt_[\w-]+/);
          const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': '0'.repeat(64) }, body: '{"id":"evt_forged","event":"payment.completed"}' });
          assert.equal(forged.status, 400);
          await receiver.waitFor(/refused: signature_invalid/);

          const before = await balanceMinor(s, customer, 'NGN');
          const sold = await run(language.files.pos);
          assert.match(sold, /session [0-9a-f-]{36} pending: show http:\/\/\S+\/tap\/[0-9a-f-]{36} or tap a ring/);
          assert.match(sold, new RegExp(`session [0-9a-f-]{36} completed, paid by @${customer}`));
          assert.equal(before - (await balanceMinor(s, customer, 'NGN')), 450_000);
        } finally {
          receiver.child.kill('SIGTERM');
          await receiver.exit;
        }
      });
    }
  });
}
