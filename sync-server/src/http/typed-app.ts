import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/**
 * The Fastify instance modules register routes on: typed by the TypeBox type provider, so a
 * handler's `request.body`, `query` and `params` have the types of the route's schemas (no casts)
 * and its answer is checked against the response schemas. `app.ts` builds it.
 */
export type TypedApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;
