// npm run openapi runs this (after writing openapi.json): the clients' types of every route, from
// the committed openapi.json, written to shared/src/api/openapi.ts. The document is cut to what a
// client's types need (each operation's path and query parameters, its JSON request body, its 2xx
// answers, and the component schemas) and stripped of prose, then given to
// openapi-typescript. test/lint/client-types.test.ts fails while the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

export const documentPath = fileURLToPath(new URL('../../openapi.json', import.meta.url));
export const clientTypesPath = fileURLToPath(new URL('../src/api/openapi.ts', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const PROSE = new Set(['description', 'summary', 'title', '$comment', 'example', 'examples']);

/** A schema without its prose; a `properties` map keeps every key (a field may be named `title`). */
function plain(value: Json, inProperties = false): Json {
  if (Array.isArray(value)) return value.map((item) => plain(item));
  if (value === null || typeof value !== 'object') return value;
  const kept: { [key: string]: Json } = {};
  for (const [key, child] of Object.entries(value)) {
    if (!inProperties && (PROSE.has(key) || key.startsWith('x-'))) continue;
    kept[key] = plain(child, !inProperties && (key === 'properties' || key === 'patternProperties'));
  }
  return kept;
}

function operationTypes(operation: { [key: string]: Json }): { [key: string]: Json } {
  const responses: { [key: string]: Json } = {};
  for (const [status, response] of Object.entries((operation.responses ?? {}) as { [key: string]: { [key: string]: Json } })) {
    if (!/^2\d\d$/.test(status)) continue;
    const content = response.content as { [type: string]: Json } | undefined;
    responses[status] = { description: '', ...(content !== undefined ? { content: plain(content) } : {}) };
  }
  const parameters = ((operation.parameters ?? []) as { [key: string]: Json }[]).filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
  const body = (operation.requestBody as { content?: { [type: string]: Json }; required?: boolean } | undefined)?.content?.['application/json'];
  return {
    ...(parameters.length > 0 ? { parameters: parameters.map((parameter) => plain(parameter)) } : {}),
    ...(body !== undefined ? { requestBody: { required: (operation.requestBody as { required?: boolean }).required ?? false, content: { 'application/json': plain(body) } } } : {}),
    responses,
  };
}

/** The document cut to a client's types. */
export function clientDocument(documentText: string): { [key: string]: Json } {
  const document = JSON.parse(documentText) as { openapi: string; info: Json; paths: { [path: string]: { [method: string]: { [key: string]: Json } } }; components: { schemas: { [name: string]: Json } } };
  const paths: { [path: string]: Json } = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const methods: { [method: string]: Json } = {};
    for (const method of METHODS) if (item[method]) methods[method] = operationTypes(item[method]);
    paths[path] = methods;
  }
  const schemas: { [name: string]: Json } = {};
  for (const [name, schema] of Object.entries(document.components.schemas)) schemas[name] = plain(schema);
  return { openapi: document.openapi, info: { title: 'Tapline clients', version: '1' }, paths, components: { schemas } };
}

/**
 * The TypeScript source of the clients' route types. A field with a default stays optional where
 * the schema does not require it (defaultNonNullable: false): a request may leave it out.
 */
export async function generateClientTypes(documentText: string): Promise<string> {
  const nodes = await openapiTS(clientDocument(documentText) as never, { silent: true, alphabetize: false, defaultNonNullable: false });
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file:').href) {
  writeFileSync(clientTypesPath, await generateClientTypes(readFileSync(documentPath, 'utf8')));
  console.log('shared/src/api/openapi.ts from openapi.json');
}
