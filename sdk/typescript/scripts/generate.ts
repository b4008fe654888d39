// npm run generate -w @tapline/sdk (npm run openapi runs it): the SDK's types from the committed
// openapi.json, with openapi-typescript. sdk/typescript/test/generated.test.ts fails while the
// committed file differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

export const documentPath = fileURLToPath(new URL('../../../openapi.json', import.meta.url));
export const generatedPath = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The TypeScript source of the document's types: paths, operations and components. */
export async function generateTypes(documentText: string): Promise<string> {
  const nodes = await openapiTS(JSON.parse(documentText) as never, { silent: true, alphabetize: false });
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file:').href) {
  writeFileSync(generatedPath, await generateTypes(readFileSync(documentPath, 'utf8')));
  console.log(`sdk/typescript/src/generated/openapi.ts from openapi.json`);
}
