import { SUPPORTED_CURRENCIES } from '@tapline/shared/countries';
import { currencyExponent } from '@tapline/shared/money';
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import type { Mode } from './accounts.ts';
import { recordLedgerTransfer } from '../metrics/registry.ts';

/** What pos_tap (db/functions/pos_tap.sql) did; only completed, failed and expired changed anything. */
export type TapOutcome = 'completed' | 'failed' | 'expired' | 'not_pending' | 'session_not_found' | 'tag_not_found' | 'tag_disabled' | 'pin_required' | 'pin_required_merchant' | 'needs_lines';

/** {currency: ISO 4217 exponent}: pos_tap renders its event's amount in major units with it. */
const EXPONENTS = JSON.stringify(Object.fromEntries(SUPPORTED_CURRENCIES.map((currency) => [currency, currencyExponent(currency)])));

/**
 * One tap, or one wallet payment, in one statement (pos_tap): the session's new state, its ONE
 * ledger transfer and its pos.session.completed / pos.session.failed event (delivered to the
 * merchant's webhook URL and the session's callbackUrl, once when they are the same URL),
 * committed together in a single round trip. `pinWalletId`: the wallet
 * whose holder proved their PIN for this tap, which lifts the tag's no-PIN limits if the tag still
 * pays from it. `Row` is the pos_sessions row as the caller reads it.
 *
 * A session sold with lines (a cart) is answered `needs_lines` with nothing changed, unless
 * `saleMembers` is given: the members its event adds (`"items":[…],"cartDiscount":…,"totals":{…}`,
 * JSON without the braces), which only the caller can compute (cart arithmetic), and which it
 * passes inside the transaction that also checks and moves the products' stock.
 */
export async function posTap<Row extends { id: string }>(
  db: Queryable,
  fields: {
    sessionId: string;
    mode: Mode;
    merchantId: string | null;
    tagId: string | null;
    payerWalletId: string | null;
    payerHandle: string | null;
    now: Date;
    transferId: string;
    pinWalletId: string | null;
    saleMembers?: string;
  },
): Promise<{ outcome: TapOutcome; row: Row | undefined }> {
  const [result] = await db.query<Row & { outcome: TapOutcome }>(
    'SELECT t.outcome, (t.session).* FROM pos_tap($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14) AS t',
    [
      fields.sessionId,
      fields.mode,
      fields.merchantId,
      fields.tagId,
      fields.payerWalletId,
      fields.payerHandle,
      fields.now,
      fields.transferId,
      fields.pinWalletId,
      newId('evt'),
      newId('whd'),
      EXPONENTS,
      fields.saleMembers ?? null,
      newId('whd'),
    ],
    { prepareAs: 'pos_tap' },
  );
  if (!result) throw new Error('pos_tap returned no row');
  const { outcome, ...row } = result;
  // pos_tap posts its transfer itself, past transfer()'s counting.
  if (outcome === 'completed') recordLedgerTransfer('pos_payment');
  return { outcome, row: (row as unknown as Row).id ? (row as unknown as Row) : undefined };
}
