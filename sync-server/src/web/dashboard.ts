import { readFile } from 'node:fs/promises';
import { extname, normalize } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { fileIn } from './static-file.ts';

/**
 * The merchant dashboard (dashboard/): a Vite build of Svelte pages served from
 * `config.dashboardDir` at /dashboard/. `/`, `/login` and `/dashboard` lead there. The page
 * calls /api with its session cookie (modules/merchant-users). Built by `npm start`
 * (dashboard/src/build.ts, with web/src/build/cached-build.ts); a server without a build answers 503 dashboard_not_built.
 */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Svelte and Chart.js set style attributes, hence 'unsafe-inline' for styles only; no inline script. */
const DASHBOARD_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export async function dashboardRoutes(app: FastifyInstance, { config }: AppContext): Promise<void> {
  const root = normalize(config.dashboardDir);
  for (const url of ['/', '/login', '/dashboard']) {
    app.get(url, { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard/', 302));
  }
  app.get('/dashboard/*', { schema: { hide: true } }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    // Hashed assets may be cached for good; index.html never (it names the current assets).
    const file = (rest !== '' && rest !== 'index.html' ? await fileIn(root, rest) : undefined) ?? (await fileIn(root, 'index.html'));
    if (!file) throw new ApiError(503, 'dashboard_not_built', 'The dashboard has not been built: run npm start, or npm run build -w @tapline/dashboard');
    const isAsset = rest.startsWith('assets/') && file.endsWith(rest.split('/').pop()!);
    if (rest !== '' && rest !== 'index.html' && !isAsset && extname(rest) !== '') throw new ApiError(404, 'route_not_found', `No file /dashboard/${rest}`);
    return reply
      .headers(DASHBOARD_HEADERS)
      .header('cache-control', isAsset ? 'public, max-age=31536000, immutable' : 'no-store')
      .type(TYPES[extname(file)] ?? 'application/octet-stream')
      .send(await readFile(file));
  });
}
