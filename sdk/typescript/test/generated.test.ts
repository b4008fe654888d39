import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { documentPath, generateTypes, generatedPath } from '../scripts/generate.ts';

describe('generated types', () => {
  it('are openapi-typescript\'s output for the committed openapi.json (run `npm run openapi` after changing a route)', async () => {
    const expected = await generateTypes(readFileSync(documentPath, 'utf8'));
    if (readFileSync(generatedPath, 'utf8') !== expected) {
      assert.fail('sdk/typescript/src/generated/openapi.ts differs from openapi.json: run `npm run openapi` and commit both files');
    }
  });
});
