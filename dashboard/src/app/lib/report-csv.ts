import type { Answer } from '@tapline/shared/api';
import { toCsv } from './csv.ts';

/** A day report as the dashboard reads it (an X or Z report of a terminal). */
export type DayReport = Answer<'GET', '/api/merchant/terminals/{id}/reports/{reportId}'>;
type Tally = DayReport['online'];

/**
 * A report as one table (line, value, count, amount) an accountant's spreadsheet reads: the API's own
 * field names rather than the page's words, so a file reads the same in every language.
 */
export function reportCsv(report: DayReport): string {
  const value = (line: string, text: string | number) => [line, text, '', ''];
  const tally = (line: string, { count, amount }: Tally) => [line, '', count, amount];
  const rows: (string | number)[][] = [
    value('report', `${report.kind}${report.number ?? ''}`),
    value('terminal', report.terminalId),
    value('currency', report.currency),
    value('opened_at', report.openedAt),
    value('closed_at', report.closedAt),
    ...Object.entries(report.methods).map(([method, figures]) => tally(`method.${method}`, figures)),
    ...(['online', 'offline', 'declinedOffline', 'giftCardsSold', 'refunds', 'refundFailures'] as const).map((name) => tally(name, report[name])),
    ...report.taxes.flatMap((tax) => [[`tax.${tax.rate}.taxable`, '', '', tax.taxable], [`tax.${tax.rate}.tax`, '', '', tax.tax]]),
    ['gross', '', '', report.gross],
    ['net', '', '', report.net],
    ...report.oversold.map((product) => [`oversold.${product.productId}`, product.name, product.stock, '']),
  ];
  return toCsv(['line', 'value', 'count', 'amount'], rows);
}
