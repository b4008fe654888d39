import { IDEMPOTENCY_KEY_LENGTH_MAX, IDEMPOTENCY_TTL_HOURS, JSON_DEPTH_MAX } from '@tapline/shared/limits';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Database, type Queryable, relaxedCommits } from '../db/database.ts';
import { badRequest, conflict, unprocessable } from './errors.ts';
import { OWNER_SILENT_AFTER_SECONDS, registerClaimOwner } from './claim-owner.ts';
import { bodyTooDeep } from './json-body.ts';
import { retryInBackground } from '../db/retry.ts';
import { StatementBatcher } from '../db/batcher.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: a POST without Idempotency-Key is a 400 (POST /api/pay). `optional`: honoured when sent. */
    idempotency?: 'required' | 'optional';
    /**
     * Rewrites an answer before it is stored for replay: for answers that carry a secret which
     * must never be stored (a gift card's code), the replay answers the rest without it.
     */
    idempotencyRedact?: (body: unknown) => unknown;
    /**
     * For public routes whose caller is named and proven in the body (the store's buyerHandle +
     * walletPin): `scope` keys the Idempotency-Key to that caller instead of the shared public
     * scope; the `secrets` fields are left out of the stored request hash (a 4-to-8 digit PIN
     * under a fast hash could be found by trying them all); `beforeReplay` proves the caller again
     * before a stored answer is replayed (a replay must not answer a wrong PIN); answers with a
     * status in `forgetStatuses` (a wrong PIN, a lock-out) are not stored, so a corrected retry
     * with the same key runs afresh.
     *
     * `scope` and `beforeReplay` are methods, not function properties, on purpose: a route passes
     * callbacks that take its request as its schemas type it (`FastifyRequest<{ Params; Body }>`),
     * which TypeScript accepts only for a method's (bivariant) parameter. That is sound here:
     * they run in preHandler, after Fastify validated the params and body against those schemas.
     */
    idempotencyBodyCredential?: {
      scope(request: FastifyRequest): string;
      secrets: readonly string[];
      beforeReplay(request: FastifyRequest): Promise<void>;
      forgetStatuses: readonly number[];
    };
  }
  interface FastifyRequest {
    /** The Idempotency-Key this request runs under, once claimed, with the seed of its derived ids. */
    idempotency: { scope: string; key: string; seed: string } | null;
  }
}

/**
 * A claim older than this with no answer is taken for abandoned even though its process still
 * beats (a request stuck that long); a claim of a process that stopped beating is abandoned
 * sooner (claim-owner.ts).
 */
const ABANDONED_AFTER_SECONDS = 120;

/** Bodies deeper than JSON_DEPTH_MAX are refused when parsed; this bound holds for any other input too. */
function canonicalJson(value: unknown, depth = 0): string {
  if (depth > JSON_DEPTH_MAX) throw bodyTooDeep();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function hashedBody(request: FastifyRequest): unknown {
  const secrets = request.routeOptions.config.idempotencyBodyCredential?.secrets;
  const body = request.body ?? null;
  if (!secrets || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !secrets.includes(key)));
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url}\n${canonicalJson(request.params)}\n${canonicalJson(hashedBody(request))}`)
    .digest('hex');
}

function storedAnswer(request: FastifyRequest, payload: unknown): string {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload ?? null);
  const redact = request.routeOptions.config.idempotencyRedact;
  return redact ? JSON.stringify(redact(JSON.parse(text))) : text;
}

/**
 * A deterministic id derived from the idempotency claim, for payments and ledger transfers a retry
 * must not repeat. It depends on the claim's seed: a re-run of an abandoned claim (a crash) keeps
 * the seed and so derives the same id (the ledger answers `exists`, nothing is charged twice),
 * while the same key reused for a new request after its 24 hours gets a new seed and new ids.
 */
export function idempotentId(request: FastifyRequest, purpose: string): string | undefined {
  if (!request.idempotency) return undefined;
  const { scope, key, seed } = request.idempotency;
  return `${purpose}:${createHash('sha256').update(`${scope}\n${key}\n${seed}`).digest('hex').slice(0, 40)}`;
}

/** A prefixed id derived from the request's Idempotency-Key (stable across a crash re-run), or undefined. */
export function derivedId(request: FastifyRequest, purpose: string, prefix: string): string | undefined {
  const id = idempotentId(request, purpose);
  return id ? `${prefix}_${id.slice(id.indexOf(':') + 1)}` : undefined;
}

/**
 * A UUID derived from the request's Idempotency-Key, like derivedId, for records whose ids are
 * UUIDs (POS sessions): a retry of a create after a crash finds the record the first run made.
 * Version 8 (RFC 9562: custom), from the same hash as idempotentId.
 */
export function derivedUuid(request: FastifyRequest, purpose: string): string | undefined {
  const id = idempotentId(request, purpose);
  if (!id) return undefined;
  const hex = createHash('sha256').update(id).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Stripe-style Idempotency-Key: the first answer is replayed (status and body) with
 * `Idempotent-Replayed: true`; a different body is a 422; a request still running is a 409.
 * Records live in the database, so every instance and every restart agree.
 */
/**
 * The Idempotency-Key guard of every route whose config asks for one. `scopeOf` says whose keys a
 * request's are (auth/principal.ts, idempotencyScope): this layer sits below auth and does not read
 * credentials itself (app.ts wires the two).
 */
export function registerIdempotency(app: FastifyInstance, db: Database, scopeOf: (request: FastifyRequest) => string): void {
  app.decorateRequest('idempotency', null);
  const owner = registerClaimOwner(app, db);
  const records = idempotencyRecords(relaxedCommits(db), owner.id);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config.idempotency;
    if (!mode) return;
    const header = request.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || key === '') {
      if (mode === 'required') throw badRequest('idempotency_key_required', 'This request needs an Idempotency-Key header (for example a UUID)');
      return;
    }
    if (key.length > IDEMPOTENCY_KEY_LENGTH_MAX) throw badRequest('idempotency_key_invalid', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} characters`);
    const bodyCredential = request.routeOptions.config.idempotencyBodyCredential;
    const scope = bodyCredential ? bodyCredential.scope(request) : scopeOf(request);
    const hash = requestHash(request);

    // One statement claims the key: concurrent duplicates queue on the row and all but the
    // first find it taken. A key past its 24 hours starts afresh with a new seed; an abandoned
    // claim of the same request (its process stopped beating, or it has run for too long) is
    // re-run with the seed it had, by this process from now on. Concurrent requests' claims go
    // in one statement (records.claim).
    // randomUUID draws from a pooled entropy buffer: no system call per request.
    const seed = await records.claim({ scope, key, hash, seed: randomUUID() });
    if (seed !== null) {
      request.idempotency = { scope, key, seed };
      return;
    }
    const [existing] = await db.query<{ request_hash: string; state: string; response_status: number | null; response_body: string | null }>(
      'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scope, key],
    );
    if (!existing) throw conflict('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly');
    if (existing.request_hash !== hash) {
      throw unprocessable('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body');
    }
    if (existing.state !== 'completed') {
      throw conflict('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly');
    }
    if (bodyCredential) await bodyCredential.beforeReplay(request);
    reply.header('idempotent-replayed', 'true');
    reply.status(existing.response_status ?? 200).type('application/json; charset=utf-8');
    return reply.send(existing.response_body ?? '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    const settle = (what: string, statement: () => Promise<unknown>) =>
      // The answer goes out whatever happens here: a record the database cannot take now (its
      // connection just dropped) is written again in the background until it can, so a retry of
      // the key is not held at 409 any longer than the claim would be after a crash.
      retryInBackground(statement, { giveUpAfterMs: ABANDONED_AFTER_SECONDS * 1000, onError: (error) => request.log.warn({ err: error }, `idempotency: ${what} not recorded yet`) });
    if (!claim || reply.getHeader('idempotent-replayed')) return payload;
    if (request.routeOptions.config.idempotencyBodyCredential?.forgetStatuses.includes(reply.statusCode)) {
      // The caller was not proven (wrong PIN, lock-out): nothing ran, so the key is released.
      await settle('released key', () => db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [claim.scope, claim.key]));
      return payload;
    }
    if (reply.statusCode >= 500) {
      // A server fault is not an answer, but the request may have committed its effects before
      // failing. The key stays with this request and its seed, marked abandoned: a retry with the
      // same body runs again at once and derives the same ids (so a payment already made is found,
      // not made twice); another body is still refused.
      await settle('abandoned key', () =>
        db.query(
          `UPDATE idempotency_keys SET state = 'in_progress', created_at = now() - make_interval(secs => $3 + 1)
           WHERE scope = $1 AND key = $2 AND state = 'in_progress'`,
          [claim.scope, claim.key, ABANDONED_AFTER_SECONDS],
        ),
      );
    } else {
      // Relaxed commit: lost in a crash, the key is taken for abandoned after a while and the
      // retry re-runs with the same seed, finding what the first run made. Concurrent requests'
      // answers go in one statement (records.complete).
      const answer = storedAnswer(request, payload);
      await settle('answer', () => records.complete({ scope: claim.scope, key: claim.key, status: reply.statusCode, body: answer }));
    }
    return payload;
  });
}

/** How many claims or answers one statement takes, and how many such statements run at once. */
const RECORDS_BATCH_MAX = 64;
const RECORDS_IN_FLIGHT_MAX = 2;

interface ClaimRow {
  scope: string;
  key: string;
  hash: string;
  seed: string;
}

interface AnswerRow {
  scope: string;
  key: string;
  status: number;
  body: string;
}

/**
 * The claims and answers of Idempotency-Key records, batched over concurrent requests
 * (db/batcher.ts): under load a POS sale's four records (a claim and an answer for its create and
 * its tap) cost a fraction of a statement each. Both commit relaxed (no wait for the WAL flush): a
 * claim matters only once the request's own synchronous commit (the payment) is durable, and that
 * commit flushes the WAL before it; an answer lost in a crash leaves the key to be taken for
 * abandoned and re-run with the same seed, finding what the first run made.
 */
function idempotencyRecords(relaxed: Pick<Queryable, 'query'>, ownerId: string) {
  const slot = (row: { scope: string; key: string }) => JSON.stringify([row.scope, row.key]);
  const claims = new StatementBatcher<ClaimRow, string | null>(
    async (rows) => {
      // In key order, as every batch takes its rows: two batches claiming the same keys wait for
      // each other in one order instead of deadlocking.
      const claimed = await relaxed.query<{ scope: string; key: string; seed: string }>(
        `INSERT INTO idempotency_keys AS k (scope, key, request_hash, state, seed, owner)
         SELECT u.scope, u.key, u.hash, 'in_progress', u.seed, $5
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u (scope, key, hash, seed)
         ORDER BY u.scope, u.key
         ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, state = 'in_progress', created_at = now(),
           response_status = NULL, response_body = NULL, completed_at = NULL, owner = EXCLUDED.owner,
           seed = CASE WHEN k.created_at < now() - make_interval(hours => $6) THEN EXCLUDED.seed ELSE coalesce(k.seed, EXCLUDED.seed) END
         WHERE k.created_at < now() - make_interval(hours => $6)
            OR (k.state = 'in_progress' AND k.request_hash = EXCLUDED.request_hash
                AND (k.created_at < now() - make_interval(secs => $7)
                     OR NOT EXISTS (SELECT 1 FROM server_instances i WHERE i.id = k.owner AND i.heartbeat_at > now() - make_interval(secs => $8))))
         RETURNING k.scope, k.key, k.seed`,
        [rows.map((row) => row.scope), rows.map((row) => row.key), rows.map((row) => row.hash), rows.map((row) => row.seed),
          ownerId, IDEMPOTENCY_TTL_HOURS, ABANDONED_AFTER_SECONDS, OWNER_SILENT_AFTER_SECONDS],
        { prepareAs: 'idempotency_claim_batch' },
      );
      const seeds = new Map(claimed.map((row) => [slot(row), row.seed]));
      return rows.map((row) => seeds.get(slot(row)) ?? null);
    },
    { maxBatch: RECORDS_BATCH_MAX, maxInFlight: RECORDS_IN_FLIGHT_MAX, conflictKey: slot },
  );
  const answers = new StatementBatcher<AnswerRow, null>(
    async (rows) => {
      // Planned on every call, never prepared: a plan kept from when the table was small would
      // join the keys by reading the whole table (db/planner.ts).
      await relaxed.query(
        `UPDATE idempotency_keys k SET state = 'completed', response_status = u.status, response_body = u.body, completed_at = now()
         FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[]) AS u (scope, key, status, body)
         WHERE k.scope = u.scope AND k.key = u.key`,
        [rows.map((row) => row.scope), rows.map((row) => row.key), rows.map((row) => row.status), rows.map((row) => row.body)],
      );
      return rows.map(() => null);
    },
    { maxBatch: RECORDS_BATCH_MAX, maxInFlight: RECORDS_IN_FLIGHT_MAX, conflictKey: slot },
  );
  return {
    /** Claims a key for this request: its seed, or null when the key is taken (answered or running). */
    claim: (row: ClaimRow) => claims.submit(row),
    /** Stores the request's answer for replay. */
    complete: (row: AnswerRow) => answers.submit(row),
  };
}

/**
 * Forgets at most `limit` Idempotency-Key records past their IDEMPOTENCY_TTL_HOURS (the payment
 * scheduler's sweep calls it). Judged by the database's clock, as the claim that made them was.
 */
export async function deleteExpiredIdempotencyKeys(db: Queryable, limit: number): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE (scope, key) IN (
       SELECT scope, key FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1) LIMIT $2)`,
    [IDEMPOTENCY_TTL_HOURS, limit],
  );
}
