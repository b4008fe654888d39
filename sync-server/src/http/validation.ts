import AjvCompiler, { type BuildCompilerFromPool } from '@fastify/ajv-compiler';

type Options = Parameters<BuildCompilerFromPool>[1] & { customOptions?: Record<string, unknown> };
type Route = { httpPart?: string };

/**
 * JSON bodies are validated as sent: `"amount": "12.50"` is a 400, not 12.5 (the spec's amounts
 * are numbers, and a client that sends a string has a bug it should hear about). Query strings,
 * path parameters and headers are text by nature, so those still coerce (`?limit=20`).
 */
export const buildValidator = ((externalSchemas: unknown, options: Options) => {
  const pool = AjvCompiler() as unknown as (schemas: unknown, options: Options) => (route: Route) => unknown;
  const coercing = pool(externalSchemas, options);
  const asSent = pool(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as Options);
  return (route: Route) => (route.httpPart === 'body' ? asSent : coercing)(route);
}) as unknown as BuildCompilerFromPool;
