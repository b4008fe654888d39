// npm run openapi: writes the server's OpenAPI document to openapi.json at the repository root.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedDocument, serializeDocument } from '../src/testing/openapi-document.ts';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
const document = await publishedDocument();
writeFileSync(target, serializeDocument(document));
const operations = Object.values(document.paths as Record<string, object>).reduce((count, item) => count + Object.keys(item).length, 0);
console.log(`openapi.json: ${operations} operations`);
