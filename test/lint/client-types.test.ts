import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { clientTypesPath, documentPath, generateClientTypes } from '../../shared/scripts/api-types.ts';

// How a client gets its types (docs/architecture.md): the dashboard, the web pages and the kiosk
// call routes by method and path through `@tapline/shared/api`, whose types are generated from
// openapi.json (the server's own schemas, published by `npm run openapi`). These tests hold both
// links of that chain: the committed types are the document's, and a server answer that changes a
// field a client reads fails that client's type check. The second part generates the types of a
// changed copy of the document into a temporary directory and type-checks the real client
// sources against it (a tsconfig beside the client's, mapping `@tapline/shared/api` there), so
// nothing in the repository changes.
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const TSC = join(root, 'node_modules/typescript/bin/tsc');
const SVELTE_CHECK = join(root, 'node_modules/svelte-check/bin/svelte-check');

type Schema = { required?: string[]; properties?: Record<string, unknown> };
type Document = { components: { schemas: Record<string, Schema> } };

/** The document with a field of a component schema renamed (`to` undefined: removed). */
function withField(change: { schema: string; field: string; to?: string }): string {
  const document = JSON.parse(readFileSync(documentPath, 'utf8')) as Document;
  const schema = document.components.schemas[change.schema];
  assert.ok(schema?.properties?.[change.field], `${change.schema}.${change.field} is in openapi.json`);
  const { [change.field]: moved, ...others } = schema.properties;
  schema.properties = change.to === undefined ? others : { ...others, [change.to]: moved };
  schema.required = (schema.required ?? []).flatMap((name) => (name !== change.field ? [name] : change.to === undefined ? [] : [change.to]));
  return JSON.stringify(document);
}

/** Type-checks a client against the types of `documentText`: what tsc (and svelte-check) report, with the files they name. */
async function typecheckAgainst(client: 'dashboard' | 'web' | 'terminal', documentText: string, withSvelte = false): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'tapline-client-types-'));
  const probe = join(root, client, `tsconfig.client-types-${process.pid}.json`);
  try {
    writeFileSync(join(scratch, 'index.ts'), readFileSync(join(root, 'shared/src/api/index.ts')));
    writeFileSync(join(scratch, 'openapi.ts'), await generateClientTypes(documentText));
    writeFileSync(probe, JSON.stringify({ extends: './tsconfig.json', compilerOptions: { paths: { '@tapline/shared/api': [join(scratch, 'index.ts')] } }, include: ['src/**/*.ts'] }));
    const outputs: string[] = [];
    const commands: [string, string[]][] = [[TSC, ['-p', probe, '--pretty', 'false']]];
    if (withSvelte) commands.push([SVELTE_CHECK, ['--tsconfig', probe, '--output', 'machine', '--fail-on-warnings']]);
    for (const [command, args] of commands) {
      try {
        const { stdout } = await run(process.execPath, [command, ...args], { cwd: join(root, client), maxBuffer: 16 * 1024 * 1024 });
        outputs.push(stdout);
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string };
        outputs.push(`${failed.stdout ?? ''}${failed.stderr ?? ''}`, 'FAILED');
      }
    }
    return outputs.join('\n');
  } finally {
    rmSync(probe, { force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The lines of a checker's output that report an error. */
const errorLines = (output: string) => output.split('\n').filter((line) => /error/i.test(line) && /\.(ts|svelte)\b/.test(line));

describe('client types', () => {
  it("are generated from the committed openapi.json (run `npm run openapi` after changing a route's schema)", async () => {
    const expected = await generateClientTypes(readFileSync(documentPath, 'utf8'));
    if (readFileSync(clientTypesPath, 'utf8') !== expected) assert.fail('shared/src/api/openapi.ts differs from openapi.json: run `npm run openapi` and commit both files');
  });

  it('a terminal record without its name fails the dashboard type check (tsc and svelte-check) where it reads the name', async () => {
    const output = await typecheckAgainst('dashboard', withField({ schema: 'TerminalRecord', field: 'name' }), true);
    assert.ok(output.includes('FAILED'), output);
    const errors = errorLines(output);
    // lib/terminals.ts (tsc) and the Terminals page (svelte-check) read terminal.name.
    assert.ok(errors.some((line) => line.includes('src/app/lib/terminals.ts') && line.includes("'name'")), output);
    assert.ok(errors.some((line) => line.includes('Terminals.svelte') && line.includes("'name'")), output);
  });

  it("a POS session's qrPayload renamed fails the web pages' type check in the /pos page", async () => {
    const output = await typecheckAgainst('web', withField({ schema: 'PosSessionRecord', field: 'qrPayload', to: 'qrText' }));
    assert.ok(output.includes('FAILED'), output);
    const errors = errorLines(output);
    assert.ok(errors.length > 0, output);
    assert.ok(errors.some((line) => line.includes('src/pages/pos.ts') && line.includes("'qrPayload'")), output);
  });

  it("a day report's openedAt renamed fails the kiosk's type check in its receipt", async () => {
    const output = await typecheckAgainst('terminal', withField({ schema: 'DayReport', field: 'openedAt', to: 'openedOn' }));
    assert.ok(output.includes('FAILED'), output);
    const errors = errorLines(output);
    assert.ok(errors.some((line) => line.includes('src/renderer/lib/receipt.ts') && line.includes("'openedAt'")), output);
    // Every error is about the renamed field: the change alone breaks the client.
    for (const line of errors) assert.match(line, /openedAt|openedOn/, output);
  });

  it('the unchanged document type-checks the kiosk (the failures above are the change alone)', async () => {
    const output = await typecheckAgainst('terminal', readFileSync(documentPath, 'utf8'));
    assert.deepEqual(errorLines(output), []);
    assert.ok(!output.includes('FAILED'), output);
  });
});
