import type { CallOptions, Tapline } from './client.ts';
import { type WaitOptions, pollUntil } from './polling.ts';
import type { CreatePosSession, PosSession, Query } from './types.ts';

/** The states a POS session ends in. */
export const FINAL_POS_STATUSES: readonly PosSession['status'][] = ['completed', 'failed', 'expired', 'cancelled'];

export interface ChargeOptions extends WaitOptions<PosSession> {
  /** Called once with the session as it ended (completed, failed, expired or cancelled). */
  onOutcome?: (session: PosSession) => void;
  /** Called with the new pending session, to show its qrPayload or tell a reader to wait for a tap; awaited before polling starts. */
  onCreated?: (session: PosSession) => void | Promise<void>;
  idempotencyKey?: string;
}

/** POS sessions: open one for an amount, a tag tap pays it, wait for the outcome. */
export function posResource(client: Tapline) {
  const retrieveSession = (sessionId: string, options?: CallOptions): Promise<PosSession> =>
    client.request('get', '/api/pos/sessions/{sessionId}', { ...options, params: { sessionId } });
  const waitForOutcome = (sessionId: string, options?: WaitOptions<PosSession>): Promise<PosSession> =>
    pollUntil(() => retrieveSession(sessionId), (session) => FINAL_POS_STATUSES.includes(session.status), { timeoutMs: 120_000, ...options });
  const createSession = (body: CreatePosSession, options?: CallOptions): Promise<PosSession> => client.request('post', '/api/pos/sessions', { ...options, body });
  return {
    /** Opens a session (pending for 90 seconds); its id derives from the Idempotency-Key, so a retry answers the same session. */
    createSession,
    retrieveSession,
    listSessions: (query?: Query<'/api/pos/sessions', 'get'>, options?: CallOptions) => client.request('get', '/api/pos/sessions', { ...options, ...(query ? { query } : {}) }),
    /** A tag pays the session. Above the tag's no-PIN limits it answers 403 pin_required: repeat with the holder's `pin`. */
    tap: (sessionId: string, tap: { tagId: string; pin?: string }, options?: CallOptions): Promise<PosSession> =>
      client.request('post', '/api/pos/sessions/{sessionId}/tap', { ...options, params: { sessionId }, body: tap }),
    cancel: (sessionId: string, options?: CallOptions): Promise<PosSession> => client.request('post', '/api/pos/sessions/{sessionId}/cancel', { ...options, params: { sessionId } }),
    /** Polls the session every second until it ends: completed, failed, expired or cancelled. */
    waitForOutcome,
    /**
     * Opens a session and waits for its outcome: answers the ended session and calls `onOutcome`
     * with it. (Or give the session a callbackUrl and verify the pos.session.* event it receives
     * with verifyWebhook.)
     */
    charge: async (body: CreatePosSession, options: ChargeOptions = {}): Promise<PosSession> => {
      const session = await createSession(body, options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : undefined);
      await options.onCreated?.(session);
      const outcome = await waitForOutcome(session.sessionId, options);
      options.onOutcome?.(outcome);
      return outcome;
    },
  };
}
