import { DECLINE_CODES } from '@tapline/shared/decline-codes';
import { ERROR_CODES, type ErrorCode } from '@tapline/shared/error-codes';

const STATUS_WORDS: Record<number, string> = {
  400: 'Bad request: the request itself is wrong; fix it before sending it again',
  401: 'Unauthorized: the credential is missing, unknown, revoked or expired',
  403: 'Forbidden: the credential is good but may not do this (or a PIN or code is wrong)',
  404: 'Not found',
  409: 'Conflict: the thing is not in a state that allows this',
  410: 'Gone: it expired or was used up',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable: well formed, but a rule of the money or the configuration refuses it',
  429: 'Too many requests: wait (the answer\'s Retry-After says how long) and try again',
  500: 'Internal error',
  503: 'Unavailable: a dependency is briefly away; the same request may succeed later',
};

/** docs/errors.md: every error code (shared/src/error-codes.ts) by HTTP status, then the decline codes of synced documents (shared/src/decline-codes.ts). Written by `npm run openapi`. */
export function renderErrorCatalogue(): string {
  const codes = Object.keys(ERROR_CODES).sort() as ErrorCode[];
  const statuses = [...new Set(codes.flatMap((code) => ERROR_CODES[code].status as readonly number[]))].sort((a, b) => a - b);
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    '# Error codes',
    '',
    '<!-- Written by `npm run openapi` from shared/src/error-codes.ts; a test fails when it is out of date. -->',
    '',
    'Every failed call answers a JSON body `{"error": "<a sentence>", "code": "<snake_case>"}` (some add',
    '`details`). Compare the `code`, never the sentence: codes are stable, sentences may change. A',
    'code is never renamed or removed; new ones are added, so handle a code you do not know by its',
    'HTTP status. "Transient" marks the codes where the same request may succeed later (send it again',
    'with the same Idempotency-Key). Each operation of the OpenAPI document lists the codes it can',
    'answer per status (`x-error-codes`). In the meanings, "…" stands where the answer\'s own sentence',
    'names the thing (an id, an amount, a currency).',
    '',
    `${codes.length} codes.`,
  ];
  for (const status of statuses) {
    lines.push('', `## ${status}`, '', STATUS_WORDS[status] ?? '', '', '| Code | Meaning | Transient |', '| --- | --- | --- |');
    for (const code of codes) {
      const info = ERROR_CODES[code];
      if (!(info.status as readonly number[]).includes(status)) continue;
      const also = info.status.length > 1 ? ` (also ${info.status.filter((other) => other !== status).join(', ')})` : '';
      lines.push(`| \`${code}\` | ${cell(info.sentence)}${also} | ${'transient' in info ? 'yes' : ''} |`);
    }
  }
  const declines = Object.keys(DECLINE_CODES).sort() as (keyof typeof DECLINE_CODES)[];
  lines.push(
    '',
    '## Decline codes of synced documents',
    '',
    '<!-- From shared/src/decline-codes.ts. -->',
    '',
    'A document a terminal syncs (an offline payment, a till sale, a gift card sold offline) is never',
    'refused with an HTTP error: the server settles it, or declines it with a `declineCode` and a',
    '`declineReason` on the document (and in its webhook event). A cart the server refuses declines',
    'it with the cart\'s own 400 code above (for example `items_total_mismatch`). Codes shared with',
    'the list above name the same rule.',
    '',
    `${declines.length} codes.`,
    '',
    '| Code | Meaning | Declines |',
    '| --- | --- | --- |',
  );
  for (const code of declines) {
    const info: { sentence: string; documents: readonly string[] } = DECLINE_CODES[code];
    lines.push(`| \`${code}\` | ${cell(info.sentence)} | ${info.documents.map((document) => document.replaceAll('_', ' ')).join(', ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
