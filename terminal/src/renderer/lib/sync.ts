import { type RxReplicationPullStreamItem, type WithDeleted } from 'rxdb';
import { type RxReplicationState, replicateRxCollection } from 'rxdb/plugins/replication';
import { type Subscription, Subject } from 'rxjs';
import { type Socket, io } from 'socket.io-client';
import {
  type OfflinePaymentDoc,
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
  type SyncHello,
  isSyncFailure,
} from '@tapline/shared/sync-protocol';
import type { OfflinePaymentCollection } from './replica.ts';

/**
 * connecting: not connected yet since start. online: connected, nothing waiting. syncing:
 * connected with payments on their way or a replication cycle running. offline: the server
 * cannot be reached (socket.io keeps retrying). refused: the server refused this terminal's token.
 */
export type SyncState = 'connecting' | 'online' | 'syncing' | 'offline' | 'refused';

export interface SyncSnapshot {
  state: SyncState;
  /** Offline payments stored here that the server has not settled yet. */
  queued: number;
  /** The last answer from the server (ISO 8601), null before the first. */
  lastSyncAt: string | null;
  detail: string | null;
}

/** How long one pull or push may wait for the server's acknowledgement before it is retried. */
const ACK_TIMEOUT_MS = 10_000;
/** A failed pull or push is retried this soon: a shop's connection comes back in seconds. */
const RETRY_MS = 2_000;

type ReplicaDoc = WithDeleted<OfflinePaymentDoc>;

/** The server knows nothing of deletion: documents are never deleted, only settled. */
function fromServer(doc: OfflinePaymentDoc): ReplicaDoc {
  return { ...doc, _deleted: false };
}

/** RxDB's own fields (_deleted, _meta, _rev...) stay on the terminal. */
function toServer(doc: ReplicaDoc | undefined): OfflinePaymentDoc | undefined {
  if (doc === undefined) return undefined;
  return Object.fromEntries(Object.entries(doc).filter(([name]) => !name.startsWith('_'))) as unknown as OfflinePaymentDoc;
}

/**
 * The replica's connection to the sync server: socket.io on the page's own origin (the host
 * proxies /socket.io) and RxDB's replication of offline_payments over it (shared/src/sync-protocol.ts).
 * Local payments are pushed as soon as the server can be reached; the verdicts come back in the
 * push's answer (as conflicts: RxDB's default handler keeps the server's master state) and in the
 * pull stream. Every reconnect asks RxDB to resync, so nothing that changed meanwhile is missed.
 */
export class SyncConnection {
  readonly #socket: Socket;
  readonly #payments: OfflinePaymentCollection;
  readonly #stream$ = new Subject<RxReplicationPullStreamItem<OfflinePaymentDoc, SyncCheckpoint>>();
  readonly #replication: RxReplicationState<OfflinePaymentDoc, SyncCheckpoint>;
  readonly #subscriptions: Subscription[] = [];
  readonly #listeners = new Set<(snapshot: SyncSnapshot) => void>();
  readonly #helloListeners = new Set<(hello: SyncHello) => void>();
  #connection: 'connecting' | 'connected' | 'offline' | 'refused' = 'connecting';
  #active = false;
  #snapshot: SyncSnapshot = { state: 'connecting', queued: 0, lastSyncAt: null, detail: null };

  constructor(token: string, terminalId: string, payments: OfflinePaymentCollection) {
    this.#payments = payments;
    // Not connected yet: start() opens it, once the listeners are in place.
    this.#socket = io(SYNC_NAMESPACE, { auth: { token }, autoConnect: false, reconnectionDelay: 1_000, reconnectionDelayMax: RETRY_MS });
    this.#replication = replicateRxCollection<OfflinePaymentDoc, SyncCheckpoint>({
      replicationIdentifier: `tapline-sync-offline_payments-${terminalId}`,
      collection: payments,
      live: true,
      retryTime: RETRY_MS,
      waitForLeadership: false,
      autoStart: false,
      pull: {
        batchSize: SYNC_BATCH_SIZE_MAX,
        stream$: this.#stream$.asObservable(),
        handler: async (checkpoint, batchSize) => {
          const request: PullRequest = { collection: 'offline_payments', checkpoint: checkpoint ?? null, batchSize: Math.min(batchSize, SYNC_BATCH_SIZE_MAX) };
          const answer = await this.#ask<PullResponse>(SYNC_EVENTS.pull, request);
          return { documents: answer.documents.map(fromServer), checkpoint: answer.checkpoint ?? checkpoint };
        },
      },
      push: {
        batchSize: SYNC_BATCH_SIZE_MAX,
        handler: async (rows) => {
          const request: PushRequest = {
            collection: 'offline_payments',
            rows: rows.map((row) => ({ assumedMasterState: toServer(row.assumedMasterState) ?? null, newDocumentState: toServer(row.newDocumentState)! })),
          };
          return (await this.#ask<PushResponse>(SYNC_EVENTS.push, request)).conflicts.map(fromServer);
        },
      },
    });
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
      // The first connect starts the replication; later ones make it look again for what changed.
      if (!this.#replication.wasStarted) void this.#replication.start();
      else this.#stream$.next('RESYNC');
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
    socket.on(SYNC_EVENTS.stream, (message: StreamMessage) => {
      if (message?.collection !== 'offline_payments' || !Array.isArray(message.documents)) return;
      this.#stream$.next({ documents: message.documents.map(fromServer), checkpoint: message.checkpoint });
    });
    this.#subscriptions.push(
      this.#payments.find({ selector: { status: 'queued' } }).$.subscribe((docs) => this.#update({ queued: docs.length })),
      this.#replication.active$.subscribe((active) => {
        this.#active = active;
        this.#update({});
      }),
      // Failed cycles are retried by RxDB; the status bar says why meanwhile.
      this.#replication.error$.subscribe((error) => this.#update({ detail: error.message })),
    );
    socket.connect();
  }

  async stop(): Promise<void> {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    this.#socket.removeAllListeners();
    this.#socket.close();
    await this.#replication.cancel();
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
