/**
 * How a client (the dashboard, the server's web pages, the kiosk) gets its types: from the route
 * it calls. `shared/src/api/openapi.ts` is generated from the committed openapi.json (the server's
 * own TypeBox schemas, published; `npm run openapi` writes both), so
 *
 *     const terminals = await api('GET', '/api/merchant/terminals', { query: { limit: 100 } });
 *
 * types `terminals` as the server answers that route, its `query` as the route's query string, a
 * POST's `body` as the route's body and `params` as its `{name}` path segments. A route that
 * changes its answer changes these types, and a client reading a field that went away fails
 * `npm run typecheck` (test/lint/client-types.test.ts proves it). No client names a response
 * type of its own: a name it needs comes from here (`Answer`, `ListItem`, `Schemas`).
 */
import type { components, paths } from './openapi.ts';

export type { components, paths };
/** The component schemas of the OpenAPI document, by name: `Schemas['TerminalRecord']`. */
export type Schemas = components['schemas'];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Lower<M extends Method> = Lowercase<M>;
type Operation<M extends Method, P extends keyof paths> = NonNullable<paths[P][Lower<M>]>;

/** The paths (templates such as `/api/pos/sessions/{id}`) that have an operation for the method. */
export type Route<M extends Method> = {
  [P in keyof paths]: [NonNullable<paths[P][Lower<M>]>] extends [never] ? never : P;
}[keyof paths];

type ParametersOf<M extends Method, P extends keyof paths> = Operation<M, P> extends { parameters: infer Found } ? Found : never;
/** The `{name}` segments of the path. */
export type PathParams<M extends Method, P extends Route<M>> = ParametersOf<M, P> extends { path: infer Found } ? NonNullable<Found> : never;
/** The query string's fields. */
export type Query<M extends Method, P extends Route<M>> = ParametersOf<M, P> extends { query?: infer Found } ? NonNullable<Found> : never;
/** The JSON body. */
export type Body<M extends Method, P extends Route<M>> = Operation<M, P> extends { requestBody?: { content: { 'application/json': infer Found } } } ? Found : never;

type SuccessStatus = 200 | 201 | 202 | 204;
/** An answer without a body (204): the clients resolve `{}` for it. */
export type NoContent = Record<string, never>;
type Content<C> = C extends { 'application/json': infer Found } ? Found : C[keyof C];
/**
 * The route's success answer: its JSON (the union when it has several), the text of another type
 * (an SVG image), `NoContent` for none.
 */
export type Answer<M extends Method, P extends Route<M>> = Operation<M, P> extends { responses: infer Responses }
  ? {
      [S in keyof Responses]: S extends SuccessStatus ? (Responses[S] extends { content: infer C } ? Content<C> : NoContent) : never;
    }[keyof Responses]
  : never;

/**
 * An answer not trusted yet (from an address someone typed, which may not be a Tapline server): the
 * route's field names, every value still to be checked. A renamed field fails the type check of
 * the code that reads it.
 */
export type Unchecked<T> = T extends readonly unknown[] ? unknown : T extends object ? { [K in keyof T]?: Unchecked<T[K]> } : unknown;

/** GET routes whose answer is a page `{data, total, limit, offset}`. */
export type ListRoute = {
  [P in Route<'GET'>]: Answer<'GET', P> extends { data: unknown[]; total: number } ? P : never;
}[Route<'GET'>];
/** One row of a list route's pages. */
export type ListItem<P extends ListRoute> = Answer<'GET', P> extends { data: (infer Item)[] } ? Item : never;

/** What a call sends besides the method and path: `params` when the path has segments, `body` when the route requires one. */
export type Parts<M extends Method, P extends Route<M>> = ([PathParams<M, P>] extends [never] ? { params?: never } : { params: PathParams<M, P> }) &
  ([Query<M, P>] extends [never] ? { query?: never } : { query?: Query<M, P> }) &
  ([Body<M, P>] extends [never]
    ? { body?: never }
    : Operation<M, P> extends { requestBody: unknown }
      ? { body: Body<M, P> }
      : { body?: Body<M, P> }) & {
    /** Headers of this call (an Idempotency-Key). */
    headers?: Record<string, string>;
  };
/** The `parts` argument: optional when nothing in it is required. */
export type PartsArgument<M extends Method, P extends Route<M>> = object extends Parts<M, P> ? [parts?: Parts<M, P>] : [parts: Parts<M, P>];

type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/**
 * The path of a route with its `{name}` segments from `params`, encoded. The types make callers
 * pass every segment; the code stays this small because the checkout drop-in carries it within its
 * size budget.
 */
export const fillPath = (path: string, params?: unknown): string =>
  path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent((params as Record<string, string>)[name]!));

/**
 * The URL of a route: its path (`fillPath`), then the query string from `query` in its order,
 * leaving out fields that are undefined, null or ''.
 */
export function routeUrl(path: string, params?: Readonly<Record<string, string | number>>, query?: Readonly<Record<string, QueryValue>>): string {
  const pairs = Object.entries(query ?? {}).flatMap(([name, value]) =>
    value === undefined || value === null || value === '' ? [] : [value].flat().map((item) => `${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`),
  );
  const url = fillPath(path, params);
  return pairs.length > 0 ? `${url}?${pairs.join('&')}` : url;
}

/** `routeUrl` from a call's parts. */
export const partsUrl = (path: string, parts?: { params?: unknown; query?: unknown }): string =>
  routeUrl(path, parts?.params as Record<string, string | number> | undefined, parts?.query as Record<string, QueryValue> | undefined);
