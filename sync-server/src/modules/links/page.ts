import { formatMinor } from '@tapline/shared/money';
import { linkStatus } from './service.ts';
import type { LinkRow } from './store.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (value: string) => value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);

/** Only same-origin scripts; the small stylesheet is inline. */
export const LINK_PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const STYLE = `body{font:16px/1.45 system-ui,sans-serif;margin:0;padding:0 1rem;background:#f4f6f5;color:#17211c}
main{max-width:26rem;box-sizing:border-box;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
h1{font-size:1.9rem;margin:.2rem 0}.muted{color:#5b6b63}.badge{display:inline-block;background:#fff3cd;padding:.1rem .5rem;border-radius:6px;font-size:.8rem}
label{display:block;margin-top:.9rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #b9c4be;border-radius:8px}
button{margin-top:1.2rem;width:100%;padding:.8rem;font-size:1.05rem;border:0;border-radius:8px;background:#0f5132;color:#fff}button:disabled{opacity:.6}
.error{color:#a61b1b;min-height:1.2em;overflow-wrap:anywhere}.done{color:#0f5132;font-weight:600;overflow-wrap:anywhere}`;

function layout(title: string, body: string, linkId?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><link rel="icon" href="data:,"><style>${STYLE}</style>
${linkId ? '<script src="/pay/link.js" defer></script>' : ''}</head>
<body${linkId ? ` data-link="${escape(linkId)}"` : ''}><main>${body}</main></body></html>
`;
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escape(title)}</h1><p class="muted">${escape(message)}</p>`);
}

/** The public page of a link: what is being paid for, and a form for handle + PIN (+ amount when variable). */
export function linkPage(row: LinkRow, merchantName: string, now: Date): { status: number; html: string } {
  const status = linkStatus(row, now);
  if (status === 'inactive') return { status: 410, html: messagePage('Link no longer active', 'The merchant has deactivated this payment link.') };
  if (status === 'expired') return { status: 410, html: messagePage('Link expired', `This payment link expired on ${row.expires_at!.toISOString()}.`) };
  if (status === 'paid') return { status: 409, html: messagePage('Already paid', 'This single-use payment link has already been paid.') };
  const amount = row.amount === null ? '' : `<h1>${escape(formatMinor(row.amount, row.currency))} ${escape(row.currency)}</h1>`;
  const amountInput =
    row.amount === null
      ? `<label for="amount">Amount (${escape(row.currency)})</label><input id="amount" name="amount" inputmode="decimal" required autocomplete="off" placeholder="0.00">`
      : '';
  const body = `${row.mode === 'test' ? '<p class="badge">Test mode</p>' : ''}
<p class="muted">Pay ${escape(merchantName)}</p>${amount}
${row.description ? `<p>${escape(row.description)}</p>` : ''}
<form id="pay-form">${amountInput}
<label for="handle">Your @handle</label><input id="handle" name="username" autocomplete="username" required placeholder="@yourname" autocapitalize="none" spellcheck="false">
<label for="pin">Wallet PIN</label><input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" autocomplete="current-password" required>
<button id="pay-button" type="submit">Pay</button><p id="result" class="error" role="alert"></p></form>`;
  return { status: 200, html: layout(`Pay ${merchantName}`, body, row.id) };
}

/** The page's script: posts handle + PIN (+ amount) as JSON and shows the answer. */
export const LINK_PAGE_SCRIPT = `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  var linkId = document.body.dataset.link;
  var form = document.getElementById('pay-form');
  if (!form || !linkId) return;
  var result = document.getElementById('result');
  var button = document.getElementById('pay-button');
  var attempt = Date.now().toString(36) + '-' + Math.random().toString(36).slice(2);
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = { handle: document.getElementById('handle').value.trim(), pin: document.getElementById('pin').value };
    var amount = document.getElementById('amount');
    if (amount) body.amount = Number(amount.value.replace(',', '.'));
    button.disabled = true;
    result.className = 'error';
    result.textContent = '';
    // One Idempotency-Key per page and amount: a retry after a network error cannot pay twice.
    var key = attempt + ':' + body.handle.toLowerCase() + ':' + (body.amount === undefined ? '' : body.amount);
    fetch('/api/payment-links/' + encodeURIComponent(linkId) + '/pay', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) })
      .then(function (response) { return response.json().then(function (json) { return { ok: response.ok, json: json }; }); })
      .then(function (answer) {
        if (answer.ok) {
          result.className = 'done';
          result.textContent = 'Paid ' + answer.json.amount + ' ' + answer.json.currency + '. Reference ' + answer.json.paymentId + '.';
          form.querySelectorAll('input').forEach(function (input) { input.disabled = true; });
        } else {
          result.textContent = answer.json.error || 'The payment did not go through.';
          button.disabled = false;
        }
      })
      .catch(function () { result.textContent = 'Network error: try again.'; button.disabled = false; });
  });
});
`;
