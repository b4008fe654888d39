// The error codes' registry (shared/src/error-codes.ts) against what the server says and does: the
// catalogue a merchant reads (docs/errors.md) is the registry's; every code the OpenAPI document
// lists for a status is registered with that status (the test servers fail a suite that answers a
// code its document does not list, so every code answered is registered); every registered code is
// still answered somewhere in the code. The helpers' types (http/errors.ts) hold the literals.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { ERROR_CODES, type ErrorCode, codeAllowsStatus, isErrorCode } from '@tapline/shared/error-codes';
import { publishedDocument } from '../testing/openapi-document.ts';
import { renderErrorCatalogue } from './error-catalogue.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Every .ts file under `dir` but tests, the registry and the generated OpenAPI types. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.endsWith('error-codes.ts') && !path.includes('/generated/') && !path.endsWith('/api/openapi.ts'));
}

describe('the error codes\' registry', () => {
  let document: Record<string, unknown>;
  before(async () => {
    document = await publishedDocument();
  });

  it('is what docs/errors.md says (run `npm run openapi` after changing it)', () => {
    assert.equal(readFileSync(join(root, 'docs/errors.md'), 'utf8'), renderErrorCatalogue());
  });

  it('registers every code the OpenAPI document lists, with the status it is listed under', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses?: Record<string, { 'x-error-codes'?: string[] }> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          for (const code of response['x-error-codes'] ?? []) {
            if (!isErrorCode(code)) problems.push(`${method.toUpperCase()} ${path} ${status} ${code}: not registered`);
            else if (!codeAllowsStatus(code, Number(status))) problems.push(`${method.toUpperCase()} ${path} ${status} ${code}: registered with ${ERROR_CODES[code].status.join(', ')} only`);
          }
        }
      }
    }
    assert.deepEqual([...new Set(problems)], []);
  });

  it('holds no code the server no longer answers', () => {
    const text = [...sources('sync-server/src'), ...sources('shared/src')].map((path) => readFileSync(path, 'utf8')).join('\n');
    const unused = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !text.includes(`'${code}'`) && !text.includes(`"${code}"`) && !text.includes(`\`${code}\``));
    assert.deepEqual(unused, []);
  });

  it('gives every code a status, a sentence and snake_case', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^[a-z0-9]+(_[a-z0-9]+)*$/, code);
      assert.ok(info.status.length > 0 && info.status.every((status) => status >= 400 && status <= 599), code);
      assert.ok(info.sentence.length >= 10 && !info.sentence.endsWith('.'), `${code}: "${info.sentence}"`);
    }
  });
});
