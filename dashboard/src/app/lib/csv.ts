import type { ListItem } from '@tapline/shared/api';
import { CSV_FILE_BYTES_MAX } from '@tapline/shared/limits';
import type { Words } from './i18n.ts';

/**
 * A CSV file's text, or null when it is larger than CSV_FILE_BYTES_MAX. UTF-8 when the bytes are UTF-8;
 * otherwise Windows-1252, which is what a spreadsheet saves on Windows: read as UTF-8 its accented
 * names ("Adé", "São") would reach the cards as replacement characters.
 */
export async function readCsvFile(file: Blob): Promise<string | null> {
  if (file.size > CSV_FILE_BYTES_MAX) return null;
  const bytes = await file.arrayBuffer();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/** CSV (RFC 4180): quoted fields, doubled quotes, CRLF or LF lines. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index++;
      row.push(field);
      if (row.some((cell) => cell.trim() !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  row.push(field);
  if (row.some((cell) => cell.trim() !== '')) rows.push(row);
  return rows;
}

/** Objects keyed by the header row's names (trimmed); empty cells are left out. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  const names = header.map((name) => name.trim());
  return rows.map((row) => Object.fromEntries(names.flatMap((name, index) => (row[index]?.trim() ? [[name, row[index]!.trim()]] : []))));
}

/**
 * An uploaded CSV file's rows as records, the `numeric` columns' numbers sent as numbers (the API
 * judges every row on its own), or the sentence that says why there are none: a file over
 * CSV_FILE_BYTES_MAX, or no row under the header.
 */
export async function uploadedRows(w: Words, file: Blob, numeric: readonly string[]): Promise<{ rows: Record<string, unknown>[] } | { error: string }> {
  const text = await readCsvFile(file);
  if (text === null) return { error: w.t('dashboard.giftCards.fileTooLarge', { limit: '1 MB' }) };
  const rows = csvRecords(text).map((record) => {
    const row: Record<string, unknown> = { ...record };
    for (const key of numeric) if (key in record && record[key] !== '' && !Number.isNaN(Number(record[key]))) row[key] = Number(record[key]);
    return row;
  });
  return rows.length === 0 ? { error: w.t('dashboard.giftCards.noRows') } : { rows };
}

export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cell = (value: unknown) => `"${String(value ?? '').replaceAll('"', '""')}"`;
  return `${[header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** Offers `text` to the browser as a file download. */
export function download(name: string, text: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** Payments as the dashboard exports them (the Payments page, a payment link's payments). */
export function paymentsCsv(payments: readonly ListItem<'/api/payments'>[]): string {
  const header = ['id', 'status', 'amount', 'currency', 'fee', 'rail', 'receiver', 'payer', 'paymentLinkId', 'reference', 'createdAt'];
  return toCsv(header, payments.map((row) => [row.id, row.status, row.amount, row.currency, row.fee, row.rail, row.receiverName, row.senderName, row.paymentLinkId, row.reference, row.createdAt]));
}

/**
 * Payments received, every channel, as the Payments page exports them: the API's field names and
 * values (channel and method codes, amounts in major units), so a file reads the same in every language.
 */
export function receivedCsv(payments: readonly ListItem<'/api/merchant/received'>[]): string {
  const header = ['receivedAt', 'channel', 'method', 'id', 'amount', 'fee', 'net', 'currency', 'payer', 'reference', 'terminalId', 'transferId'];
  return toCsv(header, payments.map((row) => [row.receivedAt, row.channel, row.method, row.id, row.amount, row.fee, row.net, row.currency, row.payerHandle, row.reference, row.terminalId, row.transferId]));
}
