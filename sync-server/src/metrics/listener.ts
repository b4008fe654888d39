import { type Server, createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * METRICS_PORT: GET /metrics without a credential on an address of its own, for a Prometheus that
 * scrapes without tokens. It listens on METRICS_HOST (127.0.0.1 unless set), so it is reachable
 * from the LAN only when the operator says so; it serves nothing else.
 */
export async function startMetricsListener(app: FastifyInstance, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: 'Only GET /metrics is served here', code: 'route_not_found' }));
      return;
    }
    app.metrics.text().then(
      (text) => {
        response.writeHead(200, { 'content-type': app.metrics.contentType });
        response.end(text);
      },
      () => {
        response.writeHead(503, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ error: 'Metrics need the database, which does not answer', code: 'metrics_unavailable' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
