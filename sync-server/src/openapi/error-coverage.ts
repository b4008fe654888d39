import type { FastifyInstance } from 'fastify';

/**
 * The check that keeps the document's error responses true: every error a route really answers,
 * as (status, code), must be listed by its operation (`x-error-codes` of that status). The test
 * servers (src/testing/server.ts) watch every answer of every suite and fail the suite when one
 * is not documented, so the whole server test suite is the evidence, and a route added tomorrow
 * is checked the moment its tests make it answer an error: the machinery's codes (credentials,
 * validation, body, idempotency, rate limits, database) are derived from its config and schema
 * (errors.ts); its own codes must be named in its summary or description ("answers 409
 * `x_taken`") or in errors.ts' table of flows, else its suite fails with the list of what is
 * missing.
 */

export interface ErrorAnswer {
  method: string;
  /** The route as declared (`/api/pos/sessions/:sessionId`). */
  url: string;
  status: number;
  /** The body's `code`; undefined when the body is not the error body (a health report). */
  code: string | undefined;
}

type JsonObject = Record<string, unknown>;

/** `/api/pos/sessions/:sessionId` as the document spells it: `/api/pos/sessions/{sessionId}`. */
export function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Records every error answer of a route the app serves (not 404s of unknown paths). Call before listen/ready. */
export function watchErrorAnswers(app: FastifyInstance): ErrorAnswer[] {
  const seen: ErrorAnswer[] = [];
  const keys = new Set<string>();
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    if (reply.statusCode < 400 || url === undefined || request.method === 'HEAD' || request.method === 'OPTIONS') return payload;
    let code: string | undefined;
    if (typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').includes('json')) {
      try {
        const body = JSON.parse(payload) as { code?: unknown };
        if (typeof body?.code === 'string') code = body.code;
      } catch {
        // Not JSON after all: the status alone is checked.
      }
    }
    const answer = { method: request.method, url, status: reply.statusCode, code };
    const key = JSON.stringify(answer);
    if (!keys.has(key)) {
      keys.add(key);
      seen.push(answer);
    }
    return payload;
  });
  return seen;
}

/** The answers the document does not list, one line each (`POST /api/pay 409 some_code`); empty when all are. */
export function undocumentedErrorAnswers(document: JsonObject, answers: readonly ErrorAnswer[]): string[] {
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  const missing = new Set<string>();
  for (const answer of answers) {
    const operation = paths[documentPath(answer.url)]?.[answer.method.toLowerCase()];
    // Hidden routes (the web pages) are not in the document.
    if (!operation) continue;
    const response = (operation.responses as Record<string, JsonObject>)[String(answer.status)];
    const line = `${answer.method} ${answer.url} (${String(operation.operationId)}) ${answer.status} ${answer.code ?? '(no code)'}`;
    if (!response) {
      missing.add(line);
      continue;
    }
    if (answer.code === undefined) continue;
    const codes = (response['x-error-codes'] as string[] | undefined) ?? [];
    if (!codes.includes(answer.code)) missing.add(line);
  }
  return [...missing].sort();
}

/** Throws, listing them, when the app answered errors its own document does not list. */
export function assertErrorAnswersDocumented(app: FastifyInstance, answers: readonly ErrorAnswer[]): void {
  const missing = undocumentedErrorAnswers(app.swagger() as unknown as JsonObject, answers);
  if (missing.length === 0) return;
  throw new Error(
    `The server answered errors its OpenAPI document does not list (name the code in the route's summary or description, ` +
      `e.g. "answers 409 \`x_taken\`", or add it to sync-server/src/openapi/errors.ts):\n${missing.map((line) => `  ${line}`).join('\n')}`,
  );
}
