import type { components, operations, paths } from './generated/openapi.ts';

/**
 * Types of requests and answers, read from the generated `paths` of the OpenAPI document:
 * `Body<'/api/pay', 'post'>` is the payment request, `Answer<'/api/pay', 'post'>` the payment.
 */

export type { components, operations, paths };
export type Schemas = components['schemas'];

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** The paths that have an operation for the method. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [NonNullable<paths[P][M]>] extends [never] ? never : P;
}[keyof paths];

type Parameters<P extends keyof paths, M extends HttpMethod> = Operation<P, M> extends { parameters: infer Found } ? Found : never;

export type PathParams<P extends keyof paths, M extends HttpMethod> = Parameters<P, M> extends { path: infer Found } ? Found : never;
export type Query<P extends keyof paths, M extends HttpMethod> = Parameters<P, M> extends { query?: infer Found } ? NonNullable<Found> : never;
export type Body<P extends keyof paths, M extends HttpMethod> = Operation<P, M> extends { requestBody?: { content: { 'application/json': infer Found } } } ? Found : never;

type SuccessStatus = 200 | 201 | 202;
/** The JSON of the operation's success answer. */
export type Answer<P extends keyof paths, M extends HttpMethod> = Operation<P, M> extends { responses: infer Responses }
  ? {
      [S in keyof Responses]: S extends SuccessStatus ? (Responses[S] extends { content: { 'application/json': infer Found } } ? Found : unknown) : never;
    }[keyof Responses]
  : never;

/** GET paths whose answer is a page `{data, total, limit, offset}`. */
export type ListPaths = {
  [P in PathsWith<'get'>]: Answer<P, 'get'> extends { data: unknown[]; total: number } ? P : never;
}[PathsWith<'get'>];

/** One item of a list path's pages. */
export type ListItem<P extends ListPaths> = Answer<P, 'get'> extends { data: (infer Item)[] } ? Item : never;

export type Payment = Schemas['PaymentRecord'];
export type PaymentRequest = Schemas['PayRequest'];
export type PosSession = Schemas['PosSessionRecord'];
export type CreatePosSession = Schemas['CreatePosSessionBody'];
export type ErrorBody = Schemas['ErrorBody'];
