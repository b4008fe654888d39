import { type MangoQuery, type RxCollection, type RxReplicationPullStreamItem, type WithDeleted } from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { type Observable, type Subscription, Subject, combineLatest, map } from 'rxjs';
import { type Socket, io } from 'socket.io-client';
import {
  type PullRequest,
  type PullResponse,
  type PushRequest,
  type PushResponse,
  type StreamMessage,
  SYNC_BATCH_SIZE_MAX,
  SYNC_EVENTS,
  SYNC_HANDSHAKE_ERRORS,
  SYNC_NAMESPACE,
  type SyncCheckpoint,
  type SyncCollection,
  type SyncDocument,
  type SyncHello,
  isSyncFailure,
} from '@tapline/shared/sync-protocol';
import type { GiftCardSaleCollection, OfflinePaymentCollection } from './replica.ts';

/**
 * connecting: not connected yet since start. online: connected, nothing waiting. syncing:
 * connected with documents on their way or a replication cycle running. offline: the server
 * cannot be reached (socket.io keeps retrying). refused: the server refused this terminal's token.
 */
export type SyncState = 'connecting' | 'online' | 'syncing' | 'offline' | 'refused';

export interface SyncSnapshot {
  state: SyncState;
  /** Offline payments and gift card sales stored here that the server has not settled yet. */
  queued: number;
  /** The last answer from the server (ISO 8601), null before the first. */
  lastSyncAt: string | null;
  detail: string | null;
}

/** The collections this connection replicates, by their protocol names. */
export interface ReplicatedCollections {
  offline_payments: OfflinePaymentCollection;
  gift_card_sales: GiftCardSaleCollection;
}

/** How long one pull or push may wait for the server's acknowledgement before it is retried. */
const ACK_TIMEOUT_MS = 10_000;
/** A failed pull or push is retried this soon: a shop's connection comes back in seconds. */
const RETRY_MS = 2_000;

/** The server knows nothing of deletion: documents are never deleted, only settled. */
function fromServer<D extends SyncDocument>(doc: D): WithDeleted<D> {
  return { ...doc, _deleted: false };
}

/** RxDB's own fields (_deleted, _meta, _rev...) stay on the terminal. */
function toServer<D extends SyncDocument>(doc: WithDeleted<D> | undefined): D | undefined {
  if (doc === undefined) return undefined;
  return Object.fromEntries(Object.entries(doc).filter(([name]) => !name.startsWith('_'))) as unknown as D;
}

type Ask = <T>(event: string, request: unknown) => Promise<T>;

/** One collection's replication, as the connection drives it. */
interface CollectionReplication {
  /** The first call starts it; later ones (reconnects) make it look again for what changed. */
  connected(): void;
  /** A `sync:stream` message for this collection. */
  streamed(message: StreamMessage<SyncDocument>): void;
  active$: Observable<boolean>;
  error$: Observable<Error>;
  /** How many of its documents wait for the server's verdict. */
  queued$: Observable<number>;
  cancel(): Promise<unknown>;
}

/**
 * RxDB's replication of one collection over the shared socket: pull by the collection's serverSeq
 * checkpoint, push (the verdicts come back as conflicts: RxDB's default handler keeps the
 * server's master state), and the pull stream fed by `sync:stream` messages for this collection.
 */
function replicateCollection<D extends SyncDocument>(name: SyncCollection, collection: RxCollection<D>, terminalId: string, ask: Ask): CollectionReplication {
  const stream$ = new Subject<RxReplicationPullStreamItem<D, SyncCheckpoint>>();
  const replication = replicateRxCollection<D, SyncCheckpoint>({
    replicationIdentifier: `tapline-sync-${name}-${terminalId}`,
    collection,
    live: true,
    retryTime: RETRY_MS,
    waitForLeadership: false,
    autoStart: false,
    pull: {
      batchSize: SYNC_BATCH_SIZE_MAX,
      stream$: stream$.asObservable(),
      handler: async (checkpoint, batchSize) => {
        const request: PullRequest = { collection: name, checkpoint: checkpoint ?? null, batchSize: Math.min(batchSize, SYNC_BATCH_SIZE_MAX) };
        const answer = await ask<PullResponse<D>>(SYNC_EVENTS.pull, request);
        return { documents: answer.documents.map(fromServer), checkpoint: answer.checkpoint ?? checkpoint };
      },
    },
    push: {
      batchSize: SYNC_BATCH_SIZE_MAX,
      handler: async (rows) => {
        const request: PushRequest<D> = {
          collection: name,
          rows: rows.map((row) => ({ assumedMasterState: toServer(row.assumedMasterState) ?? null, newDocumentState: toServer(row.newDocumentState)! })),
        };
        return (await ask<PushResponse<D>>(SYNC_EVENTS.push, request)).conflicts.map(fromServer);
      },
    },
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
    queued$: collection.find(queued).$.pipe(map((docs) => docs.length)),
    cancel: () => replication.cancel(),
  };
}

/**
 * The replica's connection to the sync server: socket.io on the page's own origin (the host
 * proxies /socket.io) and RxDB's replication of each collection over it (offline_payments and
 * gift_card_sales, shared/src/sync-protocol.ts). Local documents are pushed as soon as the server
 * can be reached; the verdicts come back in the push's answer and in the pull stream. Every
 * reconnect asks RxDB to resync, so nothing that changed meanwhile is missed.
 */
export class SyncConnection {
  readonly #socket: Socket;
  readonly #replications: ReadonlyMap<SyncCollection, CollectionReplication>;
  readonly #subscriptions: Subscription[] = [];
  readonly #listeners = new Set<(snapshot: SyncSnapshot) => void>();
  readonly #helloListeners = new Set<(hello: SyncHello) => void>();
  #connection: 'connecting' | 'connected' | 'offline' | 'refused' = 'connecting';
  #active = false;
  #snapshot: SyncSnapshot = { state: 'connecting', queued: 0, lastSyncAt: null, detail: null };

  constructor(token: string, terminalId: string, collections: ReplicatedCollections) {
    // Not connected yet: start() opens it, once the listeners are in place.
    this.#socket = io(SYNC_NAMESPACE, { auth: { token }, autoConnect: false, reconnectionDelay: 1_000, reconnectionDelayMax: RETRY_MS });
    const ask: Ask = (event, request) => this.#ask(event, request);
    this.#replications = new Map<SyncCollection, CollectionReplication>([
      ['offline_payments', replicateCollection('offline_payments', collections.offline_payments, terminalId, ask)],
      ['gift_card_sales', replicateCollection('gift_card_sales', collections.gift_card_sales, terminalId, ask)],
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
      for (const replication of this.#replications.values()) replication.connected();
    });
    socket.on('disconnect', (reason) => {
      this.#connection = 'offline';
      this.#update({ detail: `disconnected (${reason})` });
    });
    socket.on('connect_error', (error) => {
      const refused = (SYNC_HANDSHAKE_ERRORS as readonly string[]).includes(error.message);
      this.#connection = refused ? 'refused' : 'offline';
      this.#update({ detail: refused ? `the server refused this terminal (${error.message})` : `cannot reach the sync server (${error.message})` });
    });
    socket.on(SYNC_EVENTS.hello, (hello: SyncHello) => {
      for (const listener of this.#helloListeners) listener(hello);
    });
    socket.on(SYNC_EVENTS.stream, (message: StreamMessage<SyncDocument>) => {
      if (!Array.isArray(message?.documents)) return;
      this.#replications.get(message.collection)?.streamed(message);
    });
    const replications = [...this.#replications.values()];
    this.#subscriptions.push(
      combineLatest(replications.map((replication) => replication.queued$)).subscribe((counts) => this.#update({ queued: counts.reduce((sum, count) => sum + count, 0) })),
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
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    this.#socket.removeAllListeners();
    this.#socket.close();
    await Promise.all([...this.#replications.values()].map((replication) => replication.cancel()));
  }

  /** One acknowledged request; fails at once while disconnected rather than queueing in socket.io. */
  async #ask<T>(event: string, request: unknown): Promise<T> {
    if (!this.#socket.connected) throw new Error('the sync server is not connected');
    const answer: unknown = await this.#socket.timeout(ACK_TIMEOUT_MS).emitWithAck(event, request);
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
