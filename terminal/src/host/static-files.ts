import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { CONTENT_SECURITY_POLICY_HEADER } from './csp.ts';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Serves the built renderer from `root`. Vite puts a content hash in every asset name, so
 * assets are cached for good and index.html never is (a rebuild shows on the next reload).
 * The page is a single screen: unknown paths without an extension answer index.html.
 */
export function staticFileHandler(root: string): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const base = resolve(root);
  return async (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      response.writeHead(400).end();
      return;
    }
    if (pathname.endsWith('/')) pathname += 'index.html';
    if (extname(pathname) === '') pathname = '/index.html';
    const file = resolve(join(base, pathname));
    // A path with .. must never leave the build directory.
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(404).end();
      return;
    }
    const info = await stat(file).catch(() => null);
    if (info === null || !info.isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const immutable = pathname.startsWith('/assets/');
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...(extname(file) === '.html' ? { 'content-security-policy': CONTENT_SECURITY_POLICY_HEADER, 'x-content-type-options': 'nosniff' } : {}),
    });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    createReadStream(file).pipe(response);
  };
}
