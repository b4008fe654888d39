import { SIGNATURE_HEADER, type SignatureFormat, signPayload } from '@tapline/shared/webhook-signature';
import type { Database } from '../db/database.ts';
import type { Mode } from '../auth/secrets.ts';
import { Poller, forEachLimited } from '../jobs/poller.ts';
import { AddressNotAllowedError, type PostOutcome, assertPublicHost, postWithFetch, postWithHttp } from './transport.ts';
import type { SecretBox } from '../auth/secret-box.ts';

/** The spec's retry schedule after a failed delivery: 1 min, 5 min, 30 min, 2 h, 24 h. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 24 * 3600_000];
/** The first attempt plus five retries. */
export const DELIVERY_ATTEMPTS_MAX = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** The schedule multiplied by `scale` (WEBHOOK_RETRY_SCALE): tests run the whole schedule in seconds. */
export function scaledRetryDelays(scale: number): number[] {
  return WEBHOOK_RETRY_DELAYS_MS.map((delay) => Math.round(delay * scale));
}

/** A claim outlives the request timeout by this much before another dispatcher may take the delivery over. */
const CLAIM_MARGIN_MS = 5_000;
/**
 * Deliveries attempted at once, and claimed per round trip: no more than can start at once, so no
 * claimed delivery waits in memory while its lease runs out. At most DELIVERIES_PER_RUN_MAX per run.
 */
const CONCURRENT_DELIVERIES_MAX = 16;
const CLAIM_BATCH_MAX = CONCURRENT_DELIVERIES_MAX;
const DELIVERIES_PER_RUN_MAX = 2_000;
const ERROR_TEXT_MAX = 500;

export interface EventDispatcherOptions {
  db: Database;
  /** Opens the merchants' sealed webhook secrets to sign with. */
  secrets: SecretBox;
  /** The clock every due time and claim is measured with (injected in tests). */
  now: () => Date;
  /** Delays before retry 1..5; the delivery fails after DELIVERY_ATTEMPTS_MAX attempts. */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  pollIntervalMs: number;
  /** Replaces the node:http transport (tests); live-mode address checks still apply. */
  fetch?: typeof fetch;
  /** Called with errors of background runs (the app passes its logger). */
  onError?: (error: unknown) => void;
}

interface ClaimedDelivery {
  id: string;
  event_id: string;
  mode: Mode;
  url: string;
  signature_format: SignatureFormat;
  attempts: number;
  body: string;
  webhook_secret: string | null;
}

export type RedeliverResult = { outcome: 'attempted'; deliveryId: string } | { outcome: 'not_found' } | { outcome: 'in_progress' };

const CLAIMED_COLUMNS = 'd.id, d.event_id, d.mode, d.url, d.signature_format, d.attempts, e.body, m.webhook_secret';

/**
 * Delivers the outbox (events/outbox.ts). Deliveries are claimed with FOR UPDATE SKIP LOCKED, so
 * any number of dispatchers (server instances) share the work; a claim marks the row `delivering`
 * with a lease (claimed_until, mirrored in next_attempt_at so one index finds due and abandoned
 * rows alike). A dispatcher that dies mid-delivery loses nothing: its lease runs out and the
 * delivery is claimed again, with the same event body and id. Every attempt is recorded.
 */
export class EventDispatcher {
  private readonly db: Database;
  private readonly secrets: SecretBox;
  private readonly now: () => Date;
  private readonly retryDelaysMs: readonly number[];
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly poller: Poller;

  constructor(options: EventDispatcherOptions) {
    this.db = options.db;
    this.secrets = options.secrets;
    this.now = options.now;
    this.retryDelaysMs = options.retryDelaysMs;
    this.timeoutMs = options.timeoutMs;
    this.fetchImpl = options.fetch;
    this.poller = new Poller(() => this.runOnce(), options.pollIntervalMs, options.onError ?? ((error) => console.error('event dispatcher:', error)));
  }

  /** Polls every pollIntervalMs, never overlapping itself. */
  start(): void {
    this.poller.start();
  }

  /** Stops polling and waits for the deliveries in flight. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** Claims every due delivery and attempts each once; resolves with how many were attempted. */
  async runOnce(): Promise<number> {
    const attempted: string[] = [];
    while (attempted.length < DELIVERIES_PER_RUN_MAX) {
      const batch = await this.claimDue(attempted, Math.min(CLAIM_BATCH_MAX, DELIVERIES_PER_RUN_MAX - attempted.length));
      if (batch.length === 0) break;
      attempted.push(...batch.map((delivery) => delivery.id));
      await forEachLimited(batch, CONCURRENT_DELIVERIES_MAX, (delivery) => this.attempt(delivery));
    }
    return attempted.length;
  }

  /**
   * A merchant's manual redelivery: one new attempt now, whatever the delivery's state, unless
   * another attempt is in flight. The outcome is recorded like any attempt.
   */
  async redeliver(deliveryId: string, merchantId: string, mode: Mode): Promise<RedeliverResult> {
    const now = this.now();
    const lease = new Date(now.getTime() + this.timeoutMs + CLAIM_MARGIN_MS);
    const claimed = await this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ id: string; busy: boolean }>(
        `SELECT id, (state = 'delivering' AND next_attempt_at > $4) AS busy FROM event_deliveries
         WHERE id = $1 AND merchant_id = $2 AND mode = $3 FOR UPDATE`,
        [deliveryId, merchantId, mode, now],
      );
      if (!row) return 'not_found' as const;
      if (row.busy) return 'in_progress' as const;
      const [delivery] = await tx.query<ClaimedDelivery>(
        `UPDATE event_deliveries d SET state = 'delivering', claimed_until = $2, next_attempt_at = $2, updated_at = $3
         FROM events e LEFT JOIN merchants m ON m.id = e.merchant_id
         WHERE d.id = $1 AND e.id = d.event_id
         RETURNING ${CLAIMED_COLUMNS}`,
        [deliveryId, lease, now],
      );
      return delivery!;
    });
    if (claimed === 'not_found' || claimed === 'in_progress') return { outcome: claimed };
    await this.attempt(claimed);
    return { outcome: 'attempted', deliveryId };
  }

  private async claimDue(exclude: readonly string[], limit: number): Promise<ClaimedDelivery[]> {
    const now = this.now();
    const lease = new Date(now.getTime() + this.timeoutMs + CLAIM_MARGIN_MS);
    return this.db.transaction((tx) =>
      tx.query<ClaimedDelivery>(
        `WITH due AS (
           SELECT id FROM event_deliveries
           WHERE state IN ('pending', 'delivering') AND next_attempt_at <= $1 AND NOT (id = ANY ($2::text[]))
           ORDER BY next_attempt_at, id
           LIMIT $3
           FOR UPDATE SKIP LOCKED
         )
         UPDATE event_deliveries d SET state = 'delivering', claimed_until = $4, next_attempt_at = $4, updated_at = $1
         FROM due, events e LEFT JOIN merchants m ON m.id = e.merchant_id
         WHERE d.id = due.id AND e.id = d.event_id
         RETURNING ${CLAIMED_COLUMNS}`,
        [now, exclude, limit, lease],
      ),
    );
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    const attemptedAt = this.now();
    const outcome = await this.post(delivery);
    const durationMs = Math.round(performance.now() - started);
    await this.record(delivery, attemptedAt, outcome, durationMs);
  }

  private async post(delivery: ClaimedDelivery): Promise<PostOutcome> {
    if (!delivery.webhook_secret) return { error: 'no_signing_secret: the event has no merchant to sign for' };
    let secret: string;
    try {
      secret = this.secrets.open(delivery.webhook_secret);
    } catch {
      return { error: 'signing_secret_unreadable: the webhook secret was sealed with another SECRETS_KEY; rotate it' };
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Tapline-Webhooks/1.0',
      [SIGNATURE_HEADER]: signPayload(secret, delivery.body, delivery.signature_format),
    };
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return { error: 'url_invalid' };
    }
    if (delivery.mode === 'live') {
      try {
        await assertPublicHost(url.hostname);
      } catch (error) {
        if (error instanceof AddressNotAllowedError) return { error: error.message };
        return { error: `dns_error: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
      }
    }
    if (this.fetchImpl) return postWithFetch(this.fetchImpl, delivery.url, delivery.body, headers, this.timeoutMs);
    return postWithHttp(delivery.url, delivery.body, headers, this.timeoutMs, delivery.mode === 'live');
  }

  /**
   * Records the attempt and moves the delivery on: succeeded on a 2xx; otherwise the next retry
   * of the schedule, or failed after the last. Guarded by the attempt count, so a dispatcher whose
   * lease ran out (and whose delivery another one took over) cannot record over the newer attempt.
   */
  private async record(delivery: ClaimedDelivery, attemptedAt: Date, outcome: PostOutcome, durationMs: number): Promise<void> {
    const attempt = delivery.attempts + 1;
    const succeeded = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const error = succeeded ? null : (outcome.error ?? `http_status_${outcome.status}`).slice(0, ERROR_TEXT_MAX);
    const now = this.now();
    let state: 'succeeded' | 'pending' | 'failed' = 'succeeded';
    let nextAttemptAt = now;
    if (!succeeded) {
      const delay = this.retryDelaysMs[attempt - 1];
      if (attempt >= DELIVERY_ATTEMPTS_MAX || delay === undefined) state = 'failed';
      else {
        state = 'pending';
        nextAttemptAt = new Date(now.getTime() + delay);
      }
    }
    await this.db.transaction(async (tx) => {
      const updated = await tx.query(
        `UPDATE event_deliveries SET state = $3, attempts = $2, next_attempt_at = $4, claimed_until = NULL,
           last_status = $5, last_error = $6, updated_at = $7
         WHERE id = $1 AND state = 'delivering' AND attempts = $8
         RETURNING id`,
        [delivery.id, attempt, state, nextAttemptAt, outcome.status ?? null, error, now, delivery.attempts],
      );
      if (updated.length === 0) return;
      await tx.query(
        `INSERT INTO event_delivery_attempts (delivery_id, attempt, attempted_at, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING`,
        [delivery.id, attempt, attemptedAt, outcome.status ?? null, error, durationMs],
      );
    });
  }
}
