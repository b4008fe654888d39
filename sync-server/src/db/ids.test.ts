import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.ts';

describe('newId', () => {
  it('makes prefixed 16-byte URL-safe ids, all different across many refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, () => newId('evt'));
    for (const id of ids) assert.match(id, /^evt_[A-Za-z0-9_-]{22}$/);
    assert.equal(new Set(ids).size, ids.length);
    // No two ids share their random part either (the pool hands each byte out once).
    assert.equal(new Set(ids.map((id) => id.slice(4))).size, ids.length);
  });
});
