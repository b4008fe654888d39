/** Server-rendered pages: a tiny layout and HTML escaping. Their scripts are built by Vite (web/). */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/** Tagged template: interpolated values are escaped unless they are `raw()` fragments. */
export class RawHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function raw(html: string): RawHtml {
  return new RawHtml(html);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    if (value instanceof RawHtml) out += value.html;
    else if (Array.isArray(value)) out += value.map((item) => (item instanceof RawHtml ? item.html : escapeHtml(String(item)))).join('');
    else if (value !== undefined && value !== null && value !== false) out += escapeHtml(String(value));
    out += strings[index + 1] ?? '';
  });
  return new RawHtml(out);
}

export interface PageOptions {
  title: string;
  body: RawHtml;
  /** data-* attributes on <body>: how a page hands server facts to its script without inline code. */
  data?: Record<string, string>;
  /** The page's script: web/src/pages/<name>.ts, built to /web/pages/<name>.js (an ES module, deferred). */
  script?: string;
  /** The page's language (html lang) and the JSON its scripts translate with (i18n-page.ts). */
  language: string;
  i18nData?: string;
}

/**
 * Pages load only same-origin scripts and styles (no inline code), so the Content-Security-Policy
 * below can forbid everything else.
 */
export const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function page(options: PageOptions): string {
  const data = Object.entries(options.data ?? {})
    .map(([key, value]) => ` data-${key}="${escapeHtml(value)}"`)
    .join('');
  const script = options.script === undefined ? '' : `<script type="module" src="/web/pages/${escapeHtml(options.script)}.js"></script>`;
  // A data block, never executed: the Content-Security-Policy's script-src does not apply to it.
  const i18n = options.i18nData === undefined || script === '' ? '' : `<script type="application/json" id="tapline-i18n">${options.i18nData}</script>\n`;
  return `<!doctype html>
<html lang="${escapeHtml(options.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="theme-color" content="#0f5132">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/web/style.css">
${i18n}${script}
</head>
<body${data}>
${options.body.html}
</body>
</html>
`;
}
