// npm run openapi: writes the server's OpenAPI document to openapi.json at the repository root, and
// the error codes' catalogue to docs/errors.md.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedDocument, serializeDocument } from '../src/testing/openapi-document.ts';
import { renderErrorCatalogue } from '../src/openapi/error-catalogue.ts';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
const document = await publishedDocument();
writeFileSync(target, serializeDocument(document));
const operations = Object.values(document.paths as Record<string, object>).reduce((count, item) => count + Object.keys(item).length, 0);
console.log(`openapi.json: ${operations} operations`);

const catalogue = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));
writeFileSync(catalogue, renderErrorCatalogue());
console.log('docs/errors.md: the error codes');
