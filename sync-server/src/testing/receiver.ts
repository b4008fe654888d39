import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** One request a WebhookReceiver got: the raw body exactly as sent, and its headers. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The status the receiver answered (undefined when it never answered). */
  status: number | undefined;
}

/** What to do with the nth request (1-based): answer a status, or hold it open and never answer. */
export type ReceiverPlan = (requestNumber: number, request: ReceivedRequest) => number | 'hang';

/**
 * A real HTTP server on a free loopback port that records every request's raw body, for tests
 * of webhook and callback deliveries. Answers 200 unless a plan says otherwise.
 */
export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  private plan: ReceiverPlan = () => 200;
  private readonly hanging = new Set<ServerResponse>();
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => holder.receiver!.handle({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, rawBody: Buffer.concat(chunks), status: undefined }, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    holder.receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return holder.receiver;
  }

  /** Sets how the following requests are answered. */
  respond(plan: ReceiverPlan): void {
    this.plan = plan;
  }

  /** Resolves once `count` requests in all have arrived. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** The parsed JSON bodies received so far. */
  bodies<T = Record<string, unknown>>(): T[] {
    return this.received.map((request) => JSON.parse(request.rawBody.toString('utf8')) as T);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: ReceivedRequest, response: ServerResponse): void {
    this.received.push(request);
    const decision = this.plan(this.received.length, request);
    if (decision === 'hang') {
      this.hanging.add(response);
    } else {
      request.status = decision;
      response.writeHead(decision, { 'content-type': 'application/json' }).end('{"received":true}');
    }
    this.waiters = this.waiters.filter((waiter) => {
      if (this.received.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }
}

/** A clock tests move by hand; pass `clock.now` as the server's `now`. */
export class ManualClock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  readonly now = (): Date => new Date(this.current);
  advance(milliseconds: number): Date {
    this.current += milliseconds;
    return this.now();
  }
  set(at: Date | number): void {
    this.current = typeof at === 'number' ? at : at.getTime();
  }
}
