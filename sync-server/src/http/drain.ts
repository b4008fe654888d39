import type { FastifyInstance } from 'fastify';

/** How often, while the server drains, connections that have gone idle are closed. */
const IDLE_REAP_MS = 250;

/**
 * Lets a closing server's HTTP connections end as soon as their last answer is sent.
 *
 * Fastify answers requests that arrive once the close has begun with 503 and `Connection: close`,
 * and Node closes the connections idle at that moment. A request already in flight, though, gets
 * its answer on a connection kept alive for Fastify's keepAliveTimeout (72 s): a proxy's pooled
 * connection then held the server's close open until the forced exit after 10 s (a rolling restart
 * behind HAProxy failed that way). So every answer sent while closing says `Connection: close`, and
 * a connection that goes idle some other way (a streamed answer whose headers left before the
 * close) is closed within IDLE_REAP_MS.
 */
export function registerDrain(app: FastifyInstance): void {
  let closing = false;
  let reaper: NodeJS.Timeout | undefined;
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('preClose', async () => {
    closing = true;
    reaper = setInterval(() => app.server.closeIdleConnections(), IDLE_REAP_MS);
    reaper.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(reaper);
  });
}
