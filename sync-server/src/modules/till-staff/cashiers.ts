// docs/till.md, "Who did it": a cashier id a till sends on a REST call must name one of the
// merchant's people, so reports never count sales for someone who does not exist.
import type { Queryable } from '../../db/database.ts';
import { unprocessable } from '../../http/errors.ts';
import { knownCashierIds } from './store.ts';

/**
 * A cashier id sent to a REST endpoint (POS sessions, refunds, a split tender's return): null when
 * none was sent, the id when it is one of the merchant's people, else 422 `cashier_unknown` before
 * anything moves. The sync path is different: a sale the customer already paid offline is never
 * declined for the id its kiosk recorded.
 */
export async function checkedCashierId(db: Queryable, merchantId: string, sent: string | undefined): Promise<string | null> {
  const id = sent?.trim() ?? '';
  if (id === '') return null;
  if (!(await knownCashierIds(db, merchantId, [id])).has(id)) {
    throw unprocessable('cashier_unknown', `cashierId ${id} is not one of the merchant's till staff or dashboard users`);
  }
  return id;
}
