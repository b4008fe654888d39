import { toCsv } from './csv.ts';

interface Tally {
  count: number;
  amount: number;
}
export interface DayReport {
  id: string | null;
  kind: 'X' | 'Z';
  number: number | null;
  terminalId: string;
  openedAt: string;
  closedAt: string;
  currency: string;
  methods: Record<'walletTap' | 'qrOnline' | 'offlineVoucher' | 'offlineTap' | 'giftCard', Tally>;
  online: Tally;
  offline: Tally;
  declinedOffline: Tally;
  giftCardsSold: Tally;
  refunds: Tally;
  taxes: { rate: number; taxable: number; tax: number }[];
  gross: number;
  net: number;
  oversold: { productId: string; name: string; stock: number }[];
}

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
    ...(['online', 'offline', 'declinedOffline', 'giftCardsSold', 'refunds'] as const).map((name) => tally(name, report[name])),
    ...report.taxes.flatMap((tax) => [[`tax.${tax.rate}.taxable`, '', '', tax.taxable], [`tax.${tax.rate}.tax`, '', '', tax.tax]]),
    ['gross', '', '', report.gross],
    ['net', '', '', report.net],
    ...report.oversold.map((product) => [`oversold.${product.productId}`, product.name, product.stock, '']),
  ];
  return toCsv(['line', 'value', 'count', 'amount'], rows);
}
