// The database functions answer outcomes as text ('insufficient_funds', 'pin_required', ...) that
// the TypeScript around them turns into API errors and decline verdicts. Every such word in
// db/functions/*.sql is a registered code (shared/src/error-codes.ts, shared/src/decline-codes.ts)
// or one of the few internal names below, each with where TypeScript maps it: a new outcome in
// SQL must be registered or named here, so SQL cannot invent a code nobody documents.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DECLINE_CODES } from '@tapline/shared/decline-codes';
import { ERROR_CODES } from '@tapline/shared/error-codes';

const functions = new URL('./functions/', import.meta.url);

/** Snake_case words in SQL that are no code: where each is read. */
const INTERNAL: Record<string, string> = {
  offline_tap: 'a ledger transfer kind (ledger/transfers.ts)',
  pos_payment: 'a ledger transfer kind (ledger/transfers.ts)',
  transfer_must_have_two_legs: 'a LedgerError code (ledger/ledger.ts): a programming error, answered 500',
  transfer_must_balance: 'a LedgerError code (ledger/ledger.ts): a programming error, answered 500',
  account_not_ready: 'a LedgerError code (ledger/ledger.ts): a programming error, answered 500',
  exists_with_different_legs: 'a LedgerError code (ledger/ledger.ts): an id reused for other money, answered 500',
  payment_exists: 'payments_insert_with_debits: the payment was inserted by an earlier run (payments/service.ts answers that run\'s payment)',
  needs_lines: 'pos_tap: the session\'s cart lines are to be priced in TypeScript first, then the tap runs again with them (pos/service.ts)',
  not_pending: 'pos_tap: the session has ended (pos/service.ts answers session_not_pending or the finished session)',
  pin_required_merchant: 'pos_tap: the tag has not paid this merchant with its PIN before (pos/service.ts answers 403 pin_required)',
};

describe('outcome words of the database functions', () => {
  it('are registered error or decline codes, or named internal words', () => {
    const unknown: string[] = [];
    const seen = new Set<string>();
    for (const file of readdirSync(functions).filter((name) => name.endsWith('.sql'))) {
      // Quoted words only: column and function names are not quoted; comments are skipped.
      const sql = readFileSync(new URL(file, functions), 'utf8').replace(/--.*$/gm, '');
      for (const [, word] of sql.matchAll(/'([a-z]+(?:_[a-z]+)+)'/g)) {
        seen.add(word!);
        if (!Object.hasOwn(ERROR_CODES, word!) && !Object.hasOwn(DECLINE_CODES, word!) && !Object.hasOwn(INTERNAL, word!)) unknown.push(`${file}: '${word}'`);
      }
    }
    assert.deepEqual(unknown, []);
    // The internal list names only words still in use.
    assert.deepEqual(Object.keys(INTERNAL).filter((word) => !seen.has(word)), []);
    // The offline taps' verdicts come from the database: each is a decline code.
    for (const code of ['insufficient_funds', 'pin_required', 'offline_exposure_limit']) assert.ok(Object.hasOwn(DECLINE_CODES, code), code);
  });
});
