// The database functions repeat a few product limits as literals (SQL cannot import
// shared/src/limits.ts). Each is read here from db/functions/*.sql and held to the TypeScript
// constant, so the two cannot drift apart: change one, and this fails until the other follows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OFFLINE_PAYMENT_AGE_HOURS_MAX, POS_SESSION_TTL_SECONDS } from '@tapline/shared/limits';

const functions = new URL('./functions/', import.meta.url);
/** A function file without its comments: only what PostgreSQL runs. */
const sqlOf = (file: string) => readFileSync(new URL(file, functions), 'utf8').replace(/--.*$/gm, '');

/** The one number `pattern` captures in `file`, which must occur exactly once. */
function literal(file: string, pattern: RegExp): number {
  const matches = [...sqlOf(file).matchAll(new RegExp(pattern, 'g'))];
  assert.equal(matches.length, 1, `${file}: one ${pattern}`);
  return Number(matches[0]![1]);
}

describe('limits repeated in the database functions', () => {
  it('pos_tap.sql\'s expiry message names the POS session\'s life', () => {
    // pos_session_expired_message(): the errorMessage of an expired session (spec: 90 seconds).
    assert.equal(literal('pos_tap.sql', /no payment within (\d+) seconds/), POS_SESSION_TTL_SECONDS);
  });

  it('no_pin_budget.sql keeps a tag\'s no-PIN days for as long as an offline tap may wait to settle', () => {
    // no_pin_history_roll() forgets days `p_new - N` or older. A tap settles at most
    // OFFLINE_PAYMENT_AGE_HOURS_MAX after it was taken (older: offline_payment_too_old), so its
    // day is at most ceil(hours / 24) days before the latest one, which the history must still hold
    // or the tap would be charged to a forgotten day (a fresh budget).
    const days = literal('no_pin_budget.sql', /p_new - (\d+)/);
    assert.ok(days > Math.ceil(OFFLINE_PAYMENT_AGE_HOURS_MAX / 24), `${days} days kept > ${Math.ceil(OFFLINE_PAYMENT_AGE_HOURS_MAX / 24)} days of offline waiting`);
  });
});
