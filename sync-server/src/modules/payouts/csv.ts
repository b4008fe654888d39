// The payouts as CSV (RFC 4180): the API's field names and codes, amounts in major units, so a
// file reads the same in every language. Account numbers are masked here as in every answer.
import type { PayoutStatement } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { payoutRecord } from './service.ts';
import { type SettlementAccountRow, findSettlementAccount, listPayouts } from './store.ts';
import type { MerchantCaller } from './types.ts';

const HEADER = ['id', 'createdAt', 'status', 'trigger', 'amount', 'currency', 'accountType', 'accountName', 'account', 'provider', 'providerReference', 'periodStart', 'periodEnd', 'openingBalance', 'sales', 'refunds', 'fees', 'payouts', 'other', 'onHold', 'retained', 'failureReason'];
const PAGE = 100;

function cell(value: unknown): string {
  const text = String(value ?? '');
  // A cell a spreadsheet would run as a formula is quoted with a leading apostrophe (CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}

export async function payoutsCsv(context: AppContext, caller: MerchantCaller, status: string | undefined, rowsMax: number): Promise<string> {
  const lines = [HEADER.map(cell).join(',')];
  const accounts = new Map<string, SettlementAccountRow>();
  for (let offset = 0; offset < rowsMax; offset += PAGE) {
    const page = await listPayouts(context.db, caller.merchantId, caller.mode, status, PAGE, offset);
    for (const row of page.rows) {
      let account = accounts.get(row.settlement_account_id);
      if (!account) {
        account = (await findSettlementAccount(context.db, caller.merchantId, caller.mode, row.settlement_account_id, { includeRemoved: true }))!;
        accounts.set(account.id, account);
      }
      const record = payoutRecord(row, account, { statement: false });
      const statement = row.statement as PayoutStatement;
      const destination = record.settlementAccount.accountNumber ?? record.settlementAccount.phone;
      lines.push(
        [
          record.id, record.createdAt, record.status, record.trigger, record.amount, record.currency, account.type, account.account_name, destination,
          record.provider, record.providerReference, statement.periodStart, statement.periodEnd, statement.openingBalance, statement.sales, statement.refunds,
          statement.fees, statement.payouts, statement.other, statement.onHold, statement.retained, record.failureReason,
        ].map(cell).join(','),
      );
    }
    if (offset + PAGE >= page.total) break;
  }
  return `${lines.join('\r\n')}\r\n`;
}
