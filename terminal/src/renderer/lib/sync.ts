import { SYNC_MESSAGE_BYTES_MAX, SYNC_PULL_BATCH_SIZE_MAX, SYNC_PUSH_BATCH_SIZE_MAX } from '@tapline/shared/limits';
import { type MangoQuery, type RxCollection, type RxReplicationPullStreamItem, type WithDeleted } from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { type Observable, type Subscription, Subject, combineLatest, map, of } from 'rxjs';
import { type Socket, io } from 'socket.io-client';
import {
  type PullRequest,
  type PushRequest,
  type PushResponse,
  type StreamMessage,
  SYNC_EVENTS,
  SYNC_HANDSHAKE_ERRORS,
  SYNC_NAMESPACE,
  type SyncCheckpoint,
  type SyncCollection,
  type SyncDocument,
  type SyncHello,
  type SyncStatus,
  isSyncFailure,
} from '@tapline/shared/sync-protocol';
import type { GiftCardSaleCollection, OfflinePaymentCollection, ProductCollection, ShiftEventCollection, TillSaleCollection, TillStaffCollection } from './replica.ts';
import { pushChunks } from './push-chunks.ts';

/**
 * connecting: not connected yet since start. online: connected, nothing waiting. syncing:
 * connected with documents on their way or a replication cycle running. offline: the server
 * cannot be reached (socket.io keeps retrying). refused: the server refused this terminal's token.
 */
export type SyncState = 'connecting' | 'online' | 'syncing' | 'offline' | 'refused';

export interface SyncSnapshot {
  state: SyncState;
  /** Offline payments, gift card sales, till sales and shift events stored here that the server has not settled yet. */
  queued: number;
  /** The last answer from the server (ISO 8601), null before the first ever (kept over reloads by the caller). */
  lastSyncAt: string | null;
  detail: string | null;
}

/**
 * Decides, just before a batch is pushed, which documents the server must not see: answers, by
 * id, the state to keep for them as if the server had answered it (a payment voided on this
 * terminal). Everything else is pushed. It may throw: the push is then retried like a failed one.
 */
export type PushGate = (collection: SyncCollection, docs: SyncDocument[]) => Promise<ReadonlyMap<string, SyncDocument>>;

/** The collections this connection replicates, by their protocol names. */
export interface ReplicatedCollections {
  offline_payments: OfflinePaymentCollection;
  gift_card_sales: GiftCardSaleCollection;
  /** Pull only: the merchant's catalogue (lib/catalogue.ts). */
  products?: ProductCollection;
  /** Sales completed at the till with their tenders, cashier and shift: cash sales (lib/cash-sales.ts). */
  till_sales?: TillSaleCollection;
  /** The till's cashier shifts: float, paid in / out, no sale, the count (lib/shifts.ts). */
  shift_events?: ShiftEventCollection;
  /** Pull only: who may sign in at the till, with their PIN verifiers (lib/till-pin.ts). */
  till_staff?: TillStaffCollection;
}

/** The collections of the protocol: the terminal's documents pushed, the catalogue and till staff pulled only. */
export type ReplicatedName = SyncCollection;

/** What every replicated document has: an id, and the server's order of changes. */
interface ReplicatedDocument {
  id: string;
  serverSeq: number;
}

/** How long one pull or push may wait for the server's acknowledgement before it is retried. */
const ACK_TIMEOUT_MS = 10_000;
/** A failed pull or push is retried this soon: a shop's connection comes back in seconds. */
const RETRY_MS = 2_000;
/**
 * socket.io's reconnection backoff: from half a second up to one, spread by a quarter either way
 * so a shop's terminals do not all knock at once. A shop's server restarts in seconds and queued
 * payments should settle within a couple of seconds of it listening; one terminal's attempt per
 * second is nothing to the server.
 */
const RECONNECT_DELAY_MS = 500;
const RECONNECT_DELAY_MS_MAX = 1_000;
const RECONNECT_RANDOMIZATION = 0.25;

/**
 * Payments, gift card sales, till sales and shift events are never deleted, only settled; a product the merchant archived,
 * or a member of the till staff removed, may come with `_deleted: true`, which RxDB takes as a deletion.
 */
function fromServer<D extends ReplicatedDocument>(doc: D): WithDeleted<D> {
  return { ...doc, _deleted: (doc as { _deleted?: unknown })._deleted === true };
}

/** RxDB's own fields (_deleted, _meta, _rev...) stay on the terminal. */
function toServer<D extends ReplicatedDocument>(doc: WithDeleted<D> | undefined): D | undefined {
  if (doc === undefined) return undefined;
  return Object.fromEntries(Object.entries(doc).filter(([name]) => !name.startsWith('_'))) as unknown as D;
}

export type Ask = <T>(event: string, request: unknown) => Promise<T>;

interface PullAnswer<D> {
  documents: D[];
  checkpoint: SyncCheckpoint | null;
}

/**
 * Pulls with one request read ahead: a full batch means more are waiting (a fresh kiosk pulling a
 * catalogue of thousands), so the next batch is asked for while RxDB stores this one. The
 * read-ahead is used only when RxDB then asks from exactly that checkpoint; a failed one is
 * forgotten and asked again. What changed after it was answered has a later serverSeq, so it
 * comes with a later pull or the stream.
 */
export function pullWithReadAhead<D>(pull: (checkpoint: SyncCheckpoint | null, batchSize: number) => Promise<PullAnswer<D>>) {
  let ahead: { from: number; batchSize: number; answer: Promise<PullAnswer<D>> } | null = null;
  return {
    async take(checkpoint: SyncCheckpoint | null, batchSize: number): Promise<PullAnswer<D>> {
      const from = checkpoint?.serverSeq ?? -1;
      const kept = ahead !== null && ahead.from === from && ahead.batchSize === batchSize ? ahead.answer : null;
      ahead = null;
      let answer: PullAnswer<D>;
      try {
        answer = kept === null ? await pull(checkpoint, batchSize) : await kept;
      } catch (error) {
        if (kept === null) throw error;
        answer = await pull(checkpoint, batchSize);
      }
      if (answer.documents.length === batchSize && answer.checkpoint !== null) {
        const next = answer.checkpoint;
        const request = pull(next, batchSize);
        // A read-ahead nobody takes must not be an unhandled rejection.
        request.catch(() => undefined);
        ahead = { from: next.serverSeq, batchSize, answer: request };
      }
      return answer;
    },
  };
}

/** One collection's replication, as the connection drives it. */
interface CollectionReplication {
  /** The first call starts it; later ones (reconnects) make it look again for what changed. */
  connected(): void;
  /** A `sync:stream` message for this collection. */
  streamed(message: { documents: unknown[]; checkpoint: SyncCheckpoint }): void;
  active$: Observable<boolean>;
  error$: Observable<Error>;
  /** How many of its documents wait for the server's verdict. */
  queued$: Observable<number>;
  /** Resolves once both directions have handled every change so far (a local write pushed, when it pushes). */
  inSync(): Promise<unknown>;
  cancel(): Promise<unknown>;
}

/**
 * RxDB's replication of one collection over the shared socket: pull by the collection's serverSeq
 * checkpoint, push (the verdicts come back as conflicts: RxDB's default handler keeps the
 * server's master state), and the pull stream fed by `sync:stream` messages for this collection.
 * `push: false` (the catalogue) replicates the server's documents only. Exported for the
 * catalogue's replication test (lib/catalogue-replication.test.ts).
 */
export function replicateCollection<D extends ReplicatedDocument>(
  name: ReplicatedName,
  collection: RxCollection<D>,
  terminalId: string,
  ask: Ask,
  gate: PushGate | null,
  options: { push: boolean } = { push: true },
): CollectionReplication {
  const stream$ = new Subject<RxReplicationPullStreamItem<D, SyncCheckpoint>>();
  const pullAhead = pullWithReadAhead<D>((checkpoint, batchSize) => ask(SYNC_EVENTS.pull, { collection: name, checkpoint, batchSize } satisfies PullRequest));
  const replication = replicateRxCollection<D, SyncCheckpoint>({
    replicationIdentifier: `tapline-sync-${name}-${terminalId}`,
    collection,
    live: true,
    retryTime: RETRY_MS,
    waitForLeadership: false,
    autoStart: false,
    pull: {
      batchSize: SYNC_PULL_BATCH_SIZE_MAX,
      stream$: stream$.asObservable(),
      handler: async (checkpoint, batchSize) => {
        const answer = await pullAhead.take(checkpoint ?? null, Math.min(batchSize, SYNC_PULL_BATCH_SIZE_MAX));
        return { documents: answer.documents.map(fromServer), checkpoint: answer.checkpoint ?? checkpoint };
      },
    },
    push: options.push ? {
      batchSize: SYNC_PUSH_BATCH_SIZE_MAX,
      handler: async (rows) => {
        const all = rows.map((row) => ({ assumedMasterState: toServer(row.assumedMasterState) ?? null, newDocumentState: toServer(row.newDocumentState)! }));
        // Held back documents answer as a conflict with their local master state, which RxDB keeps.
        const kept = gate === null || name === 'products' || name === 'till_staff' ? new Map<string, SyncDocument>() : await gate(name, all.map((row) => row.newDocumentState as unknown as SyncDocument));
        const sent = all.filter((row) => !kept.has(row.newDocumentState.id));
        // In messages the server accepts (a hundred long carts exceed one), one after the other.
        const answered: unknown[] = [];
        for (const rows of pushChunks(sent, SYNC_MESSAGE_BYTES_MAX)) {
          const request = { collection: name, rows } as unknown as PushRequest;
          answered.push(...(await ask<PushResponse<D & SyncDocument>>(SYNC_EVENTS.push, request)).conflicts);
        }
        return [...(answered as D[]), ...([...kept.values()] as unknown as D[])].map(fromServer);
      },
    } : undefined,
  });
  const queued = { selector: { status: 'queued' } } as MangoQuery<D>;
  return {
    connected() {
      if (!replication.wasStarted) void replication.start();
      else stream$.next('RESYNC');
    },
    streamed(message) {
      stream$.next({ documents: (message.documents as D[]).map(fromServer), checkpoint: message.checkpoint });
    },
    active$: replication.active$,
    error$: replication.error$,
    // Only pushed documents wait for a verdict.
    queued$: options.push ? collection.find(queued).$.pipe(map((docs) => docs.length)) : of(0),
    inSync: () => replication.awaitInSync(),
    cancel: () => replication.cancel(),
  };
}

/**
 * The replica's connection to the sync server: socket.io on the page's own origin (the host
 * proxies /socket.io) and RxDB's replication of each collection over it (offline_payments,
 * gift_card_sales, till_sales and shift_events pushed, products and till_staff pulled;
 * shared/src/sync-protocol.ts). Local documents are pushed as soon as the server
 * can be reached; the verdicts come back in the push's answer and in the pull stream. Every
 * reconnect asks RxDB to resync, so nothing that changed meanwhile is missed.
 */
export class SyncConnection {
  readonly #socket: Socket;
  /** Requests waiting for an acknowledgement: a lost connection fails them at once, to be retried. */
  readonly #pending = new Set<(error: Error) => void>();
  /** Requests waiting for a connection: they go out the moment it is back. */
  readonly #waitingForConnection = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  #reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  readonly #replications: ReadonlyMap<ReplicatedName, CollectionReplication>;
  readonly #subscriptions: Subscription[] = [];
  readonly #listeners = new Set<(snapshot: SyncSnapshot) => void>();
  readonly #helloListeners = new Set<(hello: SyncHello) => void>();
  #connection: 'connecting' | 'connected' | 'offline' | 'refused' = 'connecting';
  #active = false;
  #snapshot: SyncSnapshot = { state: 'connecting', queued: 0, lastSyncAt: null, detail: null };
  /** The queued count the server has acknowledged on this connection (null: none yet). */
  #reportedQueued: number | null = null;

  constructor(token: string, terminalId: string, collections: ReplicatedCollections, options: { lastSyncAt?: string | null; pushGate?: PushGate } = {}) {
    // Not connected yet: start() opens it, once the listeners are in place.
    this.#socket = io(SYNC_NAMESPACE, { auth: { token }, autoConnect: false, reconnectionDelay: RECONNECT_DELAY_MS, reconnectionDelayMax: RECONNECT_DELAY_MS_MAX, randomizationFactor: RECONNECT_RANDOMIZATION });
    this.#snapshot = { ...this.#snapshot, lastSyncAt: options.lastSyncAt ?? null };
    const ask: Ask = (event, request) => this.#ask(event, request);
    const pushGate = options.pushGate;
    // The gate decides when the push can go out (connected), not when RxDB asked for it: a push
    // asked for offline waits for the connection, and a document changed meanwhile on this
    // terminal (a split sale's offline tap withdrawn) is judged as it is then.
    const gate: PushGate | null = pushGate === undefined ? null : async (collection, docs) => {
      await this.#connected();
      return pushGate(collection, docs);
    };
    this.#replications = new Map<ReplicatedName, CollectionReplication>([
      ['offline_payments', replicateCollection('offline_payments', collections.offline_payments, terminalId, ask, gate)],
      ['gift_card_sales', replicateCollection('gift_card_sales', collections.gift_card_sales, terminalId, ask, gate)],
      ...(collections.till_sales === undefined ? [] : [['till_sales', replicateCollection('till_sales', collections.till_sales, terminalId, ask, gate)] as const]),
      ...(collections.shift_events === undefined ? [] : [['shift_events', replicateCollection('shift_events', collections.shift_events, terminalId, ask, gate)] as const]),
      ...(collections.products === undefined ? [] : [['products', replicateCollection('products', collections.products, terminalId, ask, null, { push: false })] as const]),
      ...(collections.till_staff === undefined ? [] : [['till_staff', replicateCollection('till_staff', collections.till_staff as unknown as RxCollection<ReplicatedDocument>, terminalId, ask, null, { push: false })] as const]),
    ]);
  }

  get snapshot(): SyncSnapshot {
    return this.#snapshot;
  }

  onChange(listener: (snapshot: SyncSnapshot) => void): () => void {
    this.#listeners.add(listener);
    listener(this.#snapshot);
    return () => this.#listeners.delete(listener);
  }

  onHello(listener: (hello: SyncHello) => void): () => void {
    this.#helloListeners.add(listener);
    return () => this.#helloListeners.delete(listener);
  }

  start(): void {
    const socket = this.#socket;
    socket.on('connect', () => {
      this.#connection = 'connected';
      this.#update({ detail: null });
      for (const waiting of this.#waitingForConnection) waiting.resolve();
      this.#waitingForConnection.clear();
      for (const replication of this.#replications.values()) replication.connected();
      this.#reportedQueued = null;
      this.#reportQueued();
    });
    socket.on('disconnect', (reason) => {
      this.#connection = 'offline';
      this.#update({ detail: `disconnected (${reason})` });
      this.#failPending(`the connection to the sync server was lost (${reason})`);
      // socket.io reconnects by itself after a lost transport, but not when the server closed the
      // connection (a server stopped with Ctrl-C, or restarted): then it is up to us.
      if (reason === 'io server disconnect') this.#reconnectSoon();
    });
    socket.on('connect_error', (error) => {
      const refused = (SYNC_HANDSHAKE_ERRORS as readonly string[]).includes(error.message);
      this.#connection = refused ? 'refused' : 'offline';
      this.#update({ detail: refused ? `the server refused this terminal (${error.message})` : `cannot reach the sync server (${error.message})` });
      // A refused token stays refused; any other refusal of the handshake (a server that is
      // still starting) ends socket.io's own retries, so they are restarted here.
      if (!refused && !socket.active) this.#reconnectSoon();
    });
    socket.on(SYNC_EVENTS.hello, (hello: SyncHello) => {
      this.#update({ lastSyncAt: new Date().toISOString() });
      for (const listener of this.#helloListeners) listener(hello);
    });
    socket.on(SYNC_EVENTS.stream, (message: Omit<StreamMessage<SyncDocument>, 'collection'> & { collection: ReplicatedName }) => {
      if (!Array.isArray(message?.documents)) return;
      this.#replications.get(message.collection)?.streamed(message);
    });
    const replications = [...this.#replications.values()];
    this.#subscriptions.push(
      combineLatest(replications.map((replication) => replication.queued$)).subscribe((counts) => {
        this.#update({ queued: counts.reduce((sum, count) => sum + count, 0) });
        this.#reportQueued();
      }),
      combineLatest(replications.map((replication) => replication.active$)).subscribe((actives) => {
        this.#active = actives.some(Boolean);
        this.#update({});
      }),
      // Failed cycles are retried by RxDB; the status bar says why meanwhile.
      ...replications.map((replication) => replication.error$.subscribe((error) => this.#update({ detail: error.message }))),
    );
    socket.connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    this.#socket.removeAllListeners();
    this.#socket.close();
    this.#failPending('the sync connection was stopped');
    for (const waiting of this.#waitingForConnection) waiting.reject(new Error('the sync connection was stopped'));
    this.#waitingForConnection.clear();
    await Promise.all([...this.#replications.values()].map((replication) => replication.cancel()));
  }

  /** Once, after socket.io's own first delay; socket.io's backoff takes over if that attempt fails. */
  #reconnectSoon(): void {
    if (this.#stopped || this.#reconnectTimer !== null) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      if (!this.#stopped && !this.#socket.active) this.#socket.connect();
    }, RECONNECT_DELAY_MS);
  }

  /**
   * Tells the server how many documents wait here unsent (SYNC_EVENTS.status), so the merchant's
   * dashboard shows a kiosk with sales waiting. Only while connected, and only a changed number;
   * an unanswered report is sent again at the next change or connection.
   */
  #reportQueued(): void {
    const queued = this.#snapshot.queued;
    if (this.#stopped || !this.#socket.connected || queued === this.#reportedQueued) return;
    const status: SyncStatus = { queued };
    this.#socket
      .timeout(ACK_TIMEOUT_MS)
      .emitWithAck(SYNC_EVENTS.status, status)
      .then((answer: unknown) => {
        if (!isSyncFailure(answer)) this.#reportedQueued = queued;
        // A newer count arrived while this one was on its way.
        if (this.#snapshot.queued !== queued) this.#reportQueued();
      })
      .catch(() => undefined);
  }

  #failPending(reason: string): void {
    for (const fail of this.#pending) fail(new Error(reason));
    this.#pending.clear();
  }

  /** Resolves once the socket is connected (at once when it is). */
  #connected(): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('the sync connection was stopped'));
    if (this.#socket.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.#waitingForConnection.add({ resolve, reject }));
  }

  /**
   * One acknowledged request. While disconnected it waits for the connection rather than failing:
   * what is queued goes out the moment the server is back, not at RxDB's next retry. A connection
   * lost while it waits for the answer fails it at once (RxDB retries it).
   */
  async #ask<T>(event: string, request: unknown): Promise<T> {
    if (this.#stopped) throw new Error('the sync connection was stopped');
    if (!this.#socket.connected) await new Promise<void>((resolve, reject) => this.#waitingForConnection.add({ resolve, reject }));
    const answer = await new Promise<unknown>((resolve, reject) => {
      const fail = (error: Error) => reject(error);
      this.#pending.add(fail);
      this.#socket
        .timeout(ACK_TIMEOUT_MS)
        .emitWithAck(event, request)
        .then(resolve, reject)
        .finally(() => this.#pending.delete(fail));
    });
    if (isSyncFailure(answer)) throw new Error(`${answer.code}: ${answer.error}`);
    this.#update({ lastSyncAt: new Date().toISOString(), detail: null });
    return answer as T;
  }

  #update(change: Partial<SyncSnapshot>): void {
    const next = { ...this.#snapshot, ...change };
    const connection = this.#connection;
    next.state = connection === 'connected' ? (this.#active || next.queued > 0 ? 'syncing' : 'online') : connection;
    this.#snapshot = next;
    for (const listener of this.#listeners) listener(next);
  }
}
