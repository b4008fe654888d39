import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import {
  type PullRequest,
  type PullResponse,
  type PushRequest,
  type ProductDoc,
  type TillStaffDoc,
  type PushResponse,
  type ReplicatedDocument,
  type StreamMessage,
  SYNC_COLLECTIONS,
  SYNC_EVENTS,
  SYNC_NAMESPACE,
  SYNC_PROTOCOL_VERSION,
  type SyncCollection,
  type SyncDocument,
  type SyncFailure,
  type SyncHandshakeError,
  type SyncHello,
  type SyncStatus,
  type SyncStatusAnswer,
} from '@tapline/shared/sync-protocol';
import { createAdapter } from '@socket.io/postgres-adapter';
import { SYNC_MESSAGE_BURST_MAX, SYNC_MESSAGE_BYTES_MAX, SYNC_MESSAGES_PER_SECOND_MAX, SYNC_PUSH_BATCH_SIZE_MAX, SYNC_QUEUED_MAX } from '@tapline/shared/limits';
import type { AppContext } from '../context.ts';
import { type Database, isDatabaseUnavailable } from '../db/database.ts';
import { PostgresDatabase, type SidePool, sidePool } from '../db/postgres.ts';
import { resolveCredential } from '../auth/principal.ts';
import { ApiError } from '../http/errors.ts';
import { type WalletRow, requireWallet } from '../modules/wallets/index.ts';
import { type TerminalSyncRow, findTerminalForSync, giftCardSaleSettler, offlinePaymentSettler, paymentDocument, publicKeys, saleDocument, settlePush, terminalOfflineLimits, terminalPaymentsAfter, terminalSettlementLimits, terminalSalesAfter, terminalTillSalesAfter, tillSaleDocument, tillSaleSettler, tippingOf } from '../modules/offline/index.ts';
import { recordQueuedCount } from '../modules/terminals/index.ts';
import type { PushAnswer, PushTerminal } from '../modules/push/index.ts';
import { recordSyncPush, recordSyncVerdict } from '../metrics/registry.ts';
import { terminalBudgets } from './message-budget.ts';
import { messageGate } from './message-gate.ts';
import { pullBatchSize } from './pull-batch-size.ts';
import { findProducts, productDocument, productsAfter } from '../modules/products/index.ts';
import { shiftEventDocument, shiftEventSettler, staffAfter, staffDocument, terminalShiftEventsAfter } from '../modules/till-staff/index.ts';

interface TerminalSocketData {
  terminalId: string;
  merchantId: string;
  mode: 'test' | 'live';
  handle: string;
}

interface CollectionHandler {
  pull(terminal: TerminalSocketData, afterSeq: number, limit: number): Promise<ReplicatedDocument[]>;
  /** Absent for a pull-only collection (products): a push is refused as a whole (`pull_only`). */
  push?(terminal: PushTerminal, documents: readonly unknown[]): Promise<PushAnswer<SyncDocument>>;
}

const roomOf = (terminalId: string) => `terminal:${terminalId}`;
/** Every connected terminal of a merchant in one mode: they share its catalogue. */
const catalogueRoomOf = (merchantId: string, mode: string) => `catalogue:${merchantId}:${mode}`;

/**
 * On PostgreSQL, several server instances share one database (ARCHITECTURE.md, scale-out): the
 * PostgreSQL adapter relays room messages between them by LISTEN/NOTIFY, so a verdict pushed
 * through one instance, or new limits set through another, reach a terminal connected to any.
 * It gets a small pool of its own: its LISTEN connection is held for good and must not take one
 * of the API's. PGlite is one process: nothing to share.
 */
function shareAcrossInstances(app: FastifyInstance, io: Server, db: Database): SidePool | undefined {
  if (!(db instanceof PostgresDatabase)) return undefined;
  // The adapter holds its LISTEN connection checked out and listens only for its end (then it
  // reconnects with a new one): sidePool logs the lost connection's error instead of crashing,
  // and gives the dead client's slot back, which the adapter never does.
  const side = sidePool(db.connectionString, 2, (error) => app.log.warn({ err: error }, 'sync adapter: PostgreSQL connection lost; reconnecting'), { holdOne: true });
  io.adapter(createAdapter(side.pool, { errorHandler: (error) => app.log.warn({ err: error }, 'sync adapter: PostgreSQL notification failed') }));
  return side;
}

/**
 * Sync messages this process works on at once (each holds one of the pool's 10 database
 * connections while it does); the rest wait in arrival order. Six leaves four for HTTP.
 */
export const SYNC_MESSAGES_IN_FLIGHT = 6;

function failure(code: string, error: string): SyncFailure {
  return { error, code };
}

/**
 * The replication endpoint of kiosk terminals (shared/src/sync-protocol.ts): socket.io on the
 * server's own HTTP server, namespace /sync. It is attached to `app.server` by hand (the
 * fastify-socket.io plugin does not support Fastify 5) before the server listens.
 *
 * Every pull and push checks the terminal again (a revoked terminal is cut off at its next
 * message) and works on that terminal's documents only. A terminal's messages are handled one
 * at a time, in order, so its pushes settle in the order it sent them.
 */
export function attachSyncEndpoint(app: FastifyInstance, context: AppContext): Server {
  const { db } = context;
  const onIsolate = (collection: SyncCollection) => (error: unknown) =>
    app.log.error({ err: error, collection }, 'sync push: the batch failed; settling its documents one at a time');
  const payments = offlinePaymentSettler(context);
  const sales = giftCardSaleSettler(context);
  const tillSales = tillSaleSettler(context);
  const shiftEvents = shiftEventSettler(context);
  /** What each replicated collection does with a pull and with a push. */
  const collections: Record<SyncCollection, CollectionHandler> = {
    offline_payments: {
      pull: async ({ terminalId }, after, limit) => (await terminalPaymentsAfter(db, terminalId, after, limit)).map(paymentDocument),
      push: (terminal, documents) => settlePush(db, payments, terminal, documents, context.now, onIsolate('offline_payments')),
    },
    gift_card_sales: {
      pull: async ({ terminalId }, after, limit) => (await terminalSalesAfter(db, terminalId, after, limit)).map(saleDocument),
      push: (terminal, documents) => settlePush(db, sales, terminal, documents, context.now, onIsolate('gift_card_sales')),
    },
    till_sales: {
      pull: async ({ terminalId }, after, limit) => (await terminalTillSalesAfter(db, terminalId, after, limit)).map(tillSaleDocument),
      push: (terminal, documents) => settlePush(db, tillSales, terminal, documents, context.now, onIsolate('till_sales')),
    },
    shift_events: {
      pull: async ({ terminalId }, after, limit) => (await terminalShiftEventsAfter(db, terminalId, after, limit)).map(shiftEventDocument),
      push: (terminal, documents) => settlePush(db, shiftEvents, terminal, documents, context.now, onIsolate('shift_events')),
    },
    till_staff: {
      pull: async ({ merchantId }, after, limit) => (await staffAfter(db, merchantId, after, limit)).map(staffDocument),
    },
    products: {
      pull: async ({ merchantId, mode }, after, limit) => (await productsAfter(db, merchantId, mode, after, limit)).map(productDocument),
    },
  };
  /** The handler of a collection named by a terminal: own names only (never `__proto__`, `toString`...). */
  const collectionNamed = (name: unknown): CollectionHandler | undefined =>
    typeof name === 'string' && Object.hasOwn(collections, name) ? collections[name as SyncCollection] : undefined;
  // Once the server is closing it takes no new connection: a kiosk it has just disconnected
  // reconnects at once, and through a proxy that has not yet seen this instance go unready it may
  // come back here; a connection made then would keep the HTTP server's close waiting until the
  // forced exit. Refused, the kiosk's client retries with its backoff and reaches another instance.
  let closing = false;
  const io = new Server(app.server, {
    serveClient: false,
    maxHttpBufferSize: SYNC_MESSAGE_BYTES_MAX,
    cors: { origin: false },
    allowRequest: (_request, answer) => answer(closing ? 'the server is shutting down' : null, !closing),
  });
  const adapterPool = shareAcrossInstances(app, io, db);
  const namespace = io.of(SYNC_NAMESPACE);

  async function authenticate(token: unknown): Promise<TerminalSocketData | SyncHandshakeError> {
    if (typeof token !== 'string' || token.trim() === '') return 'missing_token';
    const credential = await resolveCredential(db, () => false, { authorization: `Bearer ${token.trim()}` }, context.now());
    if (credential.state !== 'valid' || credential.principal.kind !== 'terminal') {
      return credential.state === 'invalid' && credential.code === 'terminal_revoked' ? 'terminal_revoked' : 'invalid_terminal_token';
    }
    const { terminalId, merchantId, mode, handle } = credential.principal;
    return { terminalId, merchantId, mode, handle };
  }

  /** Offline sales that settled moved their products' stock: every kiosk of the merchant hears of it. */
  async function streamSoldProducts(terminal: TerminalSocketData, documents: readonly SyncDocument[]): Promise<void> {
    const ids = new Set<string>();
    for (const doc of documents) {
      if (doc.status !== 'accepted' || !('items' in doc) || !doc.items) continue;
      for (const line of doc.items) if (line.productId) ids.add(line.productId);
    }
    if (ids.size === 0) return;
    const scope = { merchantId: terminal.merchantId, mode: terminal.mode };
    const tracked = (await findProducts(db, scope, [...ids])).filter((row) => row.track_stock);
    context.sync.productsChanged(terminal.merchantId, terminal.mode, tracked.map(productDocument));
  }

  /** What a terminal is told after every connect, and again when it changes. */
  async function helloFor(terminalId: string): Promise<SyncHello | undefined> {
    const row = await findTerminalForSync(db, terminalId);
    if (!row || row.revoked_at !== null) return undefined;
    return {
      protocolVersion: SYNC_PROTOCOL_VERSION,
      terminal: { id: row.id, name: row.name },
      merchant: { id: row.merchant_id, handle: `@${row.merchant_handle}`, name: row.merchant_name, currency: row.merchant_currency },
      mode: row.mode,
      offlineLimits: await terminalOfflineLimits(context, row),
      offlineQrKeys: await publicKeys(db),
      serverTime: context.now().toISOString(),
      language: row.language,
      tipping: tippingOf(row.tipping),
    };
  }

  const budgets = terminalBudgets(SYNC_MESSAGES_PER_SECOND_MAX, SYNC_MESSAGE_BURST_MAX);
  // At most this many sync messages of all terminals at once, of the pool's 10 connections: the
  // others wait their turn in memory, and HTTP keeps connections (message-gate.ts).
  const gate = messageGate(SYNC_MESSAGES_IN_FLIGHT);

  namespace.use((socket, next) => {
    authenticate((socket.handshake.auth as { token?: unknown } | undefined)?.token).then(
      (result) => {
        if (typeof result === 'string') return next(new Error(result));
        socket.data = result;
        return next();
      },
      (error: unknown) => {
        const unavailable = isDatabaseUnavailable(error);
        if (unavailable) app.log.warn({ err: error }, 'sync handshake: the database is unavailable');
        else app.log.error({ err: error }, 'sync handshake failed');
        next(new Error(unavailable ? 'database_unavailable' : 'server_error'));
      },
    );
  });

  namespace.on('connection', (socket: Socket) => {
    const terminal = socket.data as TerminalSocketData;
    void socket.join([roomOf(terminal.terminalId), catalogueRoomOf(terminal.merchantId, terminal.mode)]);
    // One message at a time per terminal connection, in the order they came.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(work: () => Promise<T>): Promise<T> => {
      const next = queue.then(work, work);
      queue = next.catch(() => undefined);
      return next;
    };

    // A kiosk in a loop would otherwise cost a terminal lookup and a write per message, and grow
    // this connection's queue without bound: over its budget, it is refused before any of that.
    // The budget is the terminal's, shared by all its connections to this process.
    const { budget, leave } = budgets.join(terminal.terminalId);
    let merchantWallet: Promise<WalletRow> | undefined;
    socket.on('disconnect', leave);

    const handle = <Request, Answer>(event: string, work: (request: Request, current: TerminalSyncRow) => Promise<Answer>) => {
      socket.on(event, (request: Request, ack: unknown) => {
        if (typeof ack !== 'function') return;
        if (!budget.take()) {
          ack(failure('rate_limited', `This terminal sent more than ${SYNC_MESSAGES_PER_SECOND_MAX} sync messages a second; nothing was stored, send it again in a moment`));
          return;
        }
        // A message whose socket closed while it waited is dropped unanswered: the terminal
        // sends it again when it reconnects.
        void serial(() => gate.run(async () => {
          try {
            const current = await findTerminalForSync(db, terminal.terminalId);
            if (!current || current.revoked_at !== null) {
              ack(failure('terminal_revoked', 'This terminal has been revoked by its merchant'));
              socket.disconnect(true);
              return;
            }
            ack(await work(request, current));
          } catch (error) {
            if (error instanceof ApiError) ack(failure(error.code, error.message));
            else if (isDatabaseUnavailable(error)) {
              // Nothing was stored: the terminal sends the same message again when the database is back.
              app.log.warn({ err: error, event }, 'sync message: the database is unavailable');
              ack(failure('database_unavailable', 'The server\'s database is unavailable for a moment; the terminal will send this again'));
            } else {
              app.log.error({ err: error, event }, 'sync message failed');
              ack(failure('server_error', 'The server could not handle this message; it will be retried'));
            }
          }
        }, () => socket.connected));
      });
    };

    handle<PullRequest, PullResponse<ReplicatedDocument> | SyncFailure>(SYNC_EVENTS.pull, async (request) => {
      const collection = collectionNamed(request?.collection);
      if (!collection) return failure('unknown_collection', `collection must be one of ${SYNC_COLLECTIONS.join(', ')}`);
      const after = request.checkpoint?.serverSeq ?? 0;
      if (!Number.isSafeInteger(after) || after < 0) return failure('invalid_checkpoint', 'checkpoint.serverSeq must be a non-negative integer');
      const documents = await collection.pull(terminal, after, pullBatchSize(request.batchSize));
      const last = documents.at(-1);
      return { documents, checkpoint: last ? { serverSeq: last.serverSeq } : (request.checkpoint ?? null) };
    });

    handle<PushRequest<SyncDocument>, PushResponse<SyncDocument> | SyncFailure>(SYNC_EVENTS.push, async (request, current) => {
      const collection = collectionNamed(request?.collection);
      if (!collection) return failure('unknown_collection', `collection must be one of ${SYNC_COLLECTIONS.join(', ')}`);
      if (!collection.push) return failure('pull_only', `${String(request.collection)} is replicated from the server only: the terminal cannot push it`);
      if (!Array.isArray(request.rows) || request.rows.length > SYNC_PUSH_BATCH_SIZE_MAX) return failure('invalid_push', `rows must be an array of at most ${SYNC_PUSH_BATCH_SIZE_MAX}`);
      const documents = request.rows.map((row: unknown) => (typeof row === 'object' && row !== null ? (row as { newDocumentState?: unknown }).newDocumentState : undefined));
      // The merchant's wallet in the terminal's mode never changes: looked up once per connection
      // (again after a failed lookup). The terminal's row, with its limits, is read every message.
      merchantWallet ??= requireWallet(db, terminal.handle, terminal.mode).catch((error: unknown) => {
        merchantWallet = undefined;
        throw error;
      });
      const wallet = await merchantWallet;
      const pushTerminal: PushTerminal = {
        terminalId: terminal.terminalId,
        merchantId: terminal.merchantId,
        mode: terminal.mode,
        wallet,
        createdAt: current.created_at,
        limits: await terminalSettlementLimits(context, current),
      };
      const answer = await collection.push(pushTerminal, documents);
      recordSyncPush(request.collection, documents.length);
      for (const doc of answer.conflicts) recordSyncVerdict(request.collection, doc.status, doc.declineCode);
      for (const row of answer.rejected) recordSyncVerdict(request.collection, 'rejected', row.code);
      // Other connections of the same terminal (a second window) learn the verdicts too.
      const recorded = answer.conflicts.filter((doc) => doc.serverSeq > 0);
      if (recorded.length > 0) {
        const newest = recorded.reduce((max, doc) => Math.max(max, doc.serverSeq), 0);
        const message: StreamMessage<SyncDocument> = { collection: request.collection, documents: recorded, checkpoint: { serverSeq: newest } };
        socket.to(roomOf(terminal.terminalId)).emit(SYNC_EVENTS.stream, message);
      }
      await streamSoldProducts(terminal, answer.conflicts);
      return answer.rejected.length > 0 ? answer : { conflicts: answer.conflicts };
    });

    handle<SyncStatus, SyncStatusAnswer | SyncFailure>(SYNC_EVENTS.status, async (request) => {
      const queued = request?.queued;
      if (typeof queued !== 'number' || !Number.isSafeInteger(queued) || queued < 0 || queued > SYNC_QUEUED_MAX) {
        return failure('invalid_status', `queued must be an integer from 0 to ${SYNC_QUEUED_MAX}`);
      }
      await recordQueuedCount(db, terminal.terminalId, queued, context.now());
      return { ok: true };
    });

    void serial(async () => {
      const hello = await helloFor(terminal.terminalId);
      if (hello) socket.emit(SYNC_EVENTS.hello, hello);
    }).catch((error: unknown) => app.log.error({ err: error }, 'sync hello failed'));
  });

  // Which terminals are connected, for the terminal records (connected): every server instance's
  // connections through the adapter; this instance's alone if the others do not answer in time.
  context.sync.answerConnected(async (terminalIds) => {
    const rooms = terminalIds.map(roomOf);
    const sockets = await namespace.in(rooms).fetchSockets().catch(() => namespace.local.in(rooms).fetchSockets());
    return new Set(sockets.map((socket) => (socket.data as TerminalSocketData).terminalId));
  });

  // A merchant changed this terminal's limits: its connections here hear the new hello at once.
  context.sync.listen((terminalId) => {
    helloFor(terminalId).then(
      (hello) => {
        if (hello) namespace.to(roomOf(terminalId)).emit(SYNC_EVENTS.hello, hello);
      },
      (error: unknown) => app.log.error({ err: error }, 'sync hello failed'),
    );
  });

  // A merchant's product changed (an edit, or a sale that moved its stock): its kiosks pull it at once.
  context.sync.listenProducts((merchantId, mode, documents) => {
    const newest = documents.reduce((max, doc) => Math.max(max, doc.serverSeq), 0);
    const message: StreamMessage<ProductDoc> = { collection: 'products', documents, checkpoint: { serverSeq: newest } };
    namespace.to(catalogueRoomOf(merchantId, mode)).emit(SYNC_EVENTS.stream, message);
  });

  // The merchant's till staff changed: its kiosks of both modes pull it at once.
  context.sync.listenStaff((merchantId, documents) => {
    const newest = documents.reduce((max, doc) => Math.max(max, doc.serverSeq), 0);
    const message: StreamMessage<TillStaffDoc> = { collection: 'till_staff', documents, checkpoint: { serverSeq: newest } };
    namespace.to([catalogueRoomOf(merchantId, 'test'), catalogueRoomOf(merchantId, 'live')]).emit(SYNC_EVENTS.stream, message);
  });

  // Close the terminals' connections before Fastify closes the HTTP server (which waits for them).
  app.addHook('preClose', async () => {
    closing = true;
    // This instance's terminals only (`local`): without it the PostgreSQL adapter tells every
    // other instance to drop its terminals too (a rolling restart reconnected every kiosk at each
    // step).
    namespace.local.disconnectSockets(true);
    io.engine.close();
  });
  // The adapter goes last, once the HTTP requests in flight have finished: what they change still
  // reaches the kiosks connected to the other instances (ending its pool earlier failed their
  // NOTIFYs, "Cannot use a pool after calling end on the pool").
  app.addHook('onClose', async () => {
    await Promise.all(['/', SYNC_NAMESPACE].map((name) => io.of(name).adapter.close()));
    await adapterPool?.end();
  });
  return io;
}
