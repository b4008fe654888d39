// What the sync tests share: a terminal's socket.io connection and its pull and push calls.
import { after } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PullResponse, type PushResponse, type ReplicatedDocument, SYNC_EVENTS, SYNC_NAMESPACE, type SyncCollection, type SyncDocument, type SyncFailure, type SyncHello } from '@tapline/shared/sync-protocol';
import type { TestServer } from './server.ts';

const sockets: Socket[] = [];
after(() => {
  for (const socket of sockets) socket.disconnect();
});

/** A terminal's sync connection: resolves with its hello, or rejects with the handshake's refusal. */
export async function connectTerminal(server: TestServer, token: string): Promise<{ socket: Socket; hello: SyncHello }> {
  const socket = io(`${server.baseUrl}${SYNC_NAMESPACE}`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once(SYNC_EVENTS.hello, (hello: SyncHello) => resolve({ socket, hello }));
    socket.once('connect_error', (error: Error) => reject(error));
  });
}

export function push<D extends SyncDocument = OfflinePaymentDoc>(socket: Socket, docs: unknown[], collection: SyncCollection = 'offline_payments'): Promise<PushResponse<D> | SyncFailure> {
  return socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection, rows: docs.map((doc) => ({ assumedMasterState: null, newDocumentState: doc })) });
}

export function pull<D extends ReplicatedDocument = OfflinePaymentDoc>(socket: Socket, serverSeq: number | null, batchSize = 100, collection: SyncCollection = 'offline_payments'): Promise<PullResponse<D> | SyncFailure> {
  return socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection, checkpoint: serverSeq === null ? null : { serverSeq }, batchSize });
}

export function conflictsOf<D extends SyncDocument = OfflinePaymentDoc>(answer: PushResponse<D> | SyncFailure): D[] {
  if (!('conflicts' in answer)) throw new Error(`push failed: ${JSON.stringify(answer)}`);
  return answer.conflicts;
}
