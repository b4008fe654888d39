/**
 * The kiosk page's Content-Security-Policy. The page runs its own bundled scripts only (no
 * inline script, no eval), talks to its own origin (the API and the replica's socket.io go
 * through the host) and, in browser mode, to the loopback hardware bridge on 127.0.0.1. Svelte
 * sets style attributes, hence 'unsafe-inline' for styles only; QR codes and logos may be data:
 * images. The built index.html carries it as a <meta> (so it holds however the file is served)
 * and the host sends it as a header too, with frame-ancestors, which a <meta> cannot carry.
 */
const DIRECTIVES: readonly (readonly [string, string])[] = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self' 'unsafe-inline'"],
  ['img-src', "'self' data: blob:"],
  ['font-src', "'self' data:"],
  ['connect-src', "'self' ws://127.0.0.1:* ws://localhost:*"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'self'"],
  ['frame-src', "'none'"],
  ['worker-src', "'self' blob:"],
];

/** For a <meta http-equiv="Content-Security-Policy"> in the built HTML. */
export const CONTENT_SECURITY_POLICY = DIRECTIVES.map(([name, value]) => `${name} ${value}`).join('; ');

/** For the HTTP header: the same policy, and no page may frame the kiosk. */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;

/** The <meta> tag, inserted first in <head> so it applies before any script or style loads. */
export function withCspMeta(html: string, policy: string = CONTENT_SECURITY_POLICY): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}" />`;
  if (!/<head>/i.test(html)) throw new Error('the page has no <head> for its Content-Security-Policy');
  return html.replace(/<head>/i, (head) => `${head}\n    ${meta}`);
}
