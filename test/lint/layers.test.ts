import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// The layering rules of eslint.layers.js, run by ESLint itself on fixtures: a file at a given path
// with one import. A forbidden import must fail with its rule's message; an allowed one must pass
// (so the rules are not merely broad). The fixtures are linted as text under the path they name,
// so no file with a forbidden import sits in the repository.
const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function restrictedMessages(filePath: string, importLine: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${importLine}\nexport { probe };\n`, { filePath });
  assert.ok(result, 'ESLint answered');
  return result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

const FORBIDDEN: Array<[string, string, RegExp]> = [
  // The core never imports modules, surfaces, app.ts or testing/.
  ['sync-server/src/context.ts', "import type { probe } from './modules/payments/index.ts';", /The core .* never imports modules\//],
  ['sync-server/src/ledger/fixture.ts', "import { probe } from '../modules/wallets/index.ts';", /never imports modules\//],
  ['sync-server/src/events/fixture.ts', "import { probe } from '../sync/socket.ts';", /never imports modules\/, sync\//],
  // Core layers read downwards only: db < jobs < ledger < http < auth < events < metrics, config, context.
  ['sync-server/src/http/fixture.ts', "import type { probe } from '../auth/principal.ts';", /A core layer imports only the layers below it/],
  ['sync-server/src/db/fixture.ts', "import { probe } from '../ledger/ledger.ts';", /A core layer imports only the layers below it/],
  ['sync-server/src/metrics/registry.ts', "import { probe } from './plugin.ts';", /A core layer imports only the layers below it/],
  // A module reaches another module only through its index.ts.
  ['sync-server/src/modules/bills/fixture.ts', "import { probe } from '../wallets/store.ts';", /only through its index\.ts/],
  ['sync-server/src/sync/fixture.ts', "import { probe } from '../modules/offline/store.ts';", /only through its index\.ts/],
  ['sync-server/src/app.ts', "import { probe } from './modules/pos/service.ts';", /only through its index\.ts/],
  ['sync-server/src/modules/offline/fixture.ts', "import { probe } from '../../sync/socket.ts';", /Modules do not import sync\//],
  // app.ts only from main.ts and testing/; testing/ only from tests.
  ['sync-server/src/modules/pos/fixture.test.ts', "import { probe } from '../../app.ts';", /Only main\.ts and testing\/ import app\.ts/],
  ['sync-server/src/openapi/fixture.ts', "import { probe } from '../app.ts';", /Only main\.ts and testing\/ import app\.ts/],
  ['sync-server/src/modules/gift-cards/test-helpers.ts', "import { probe } from '../../testing/server.ts';", /Only tests and scripts import testing\//],
  // Packages: shared <- hardware <- terminal, shared <- sync-server, the SDK alone.
  ['shared/src/fixture.ts', "import { probe } from '@tapline/hardware';", /shared may import no other Tapline package/],
  ['hardware/src/fixture.ts', "import { probe } from '@tapline/terminal';", /hardware may import @tapline\/shared/],
  ['terminal/src/main/fixture.ts', "import { probe } from '@tapline/sync-server/src/app.ts';", /terminal may import @tapline\/shared and @tapline\/hardware/],
  ['sync-server/src/modules/pos/fixture.ts', "import { probe } from '@tapline/hardware';", /sync-server may import @tapline\/shared/],
  ['sdk/typescript/src/fixture.ts', "import { probe } from '@tapline/shared';", /sdk\/typescript may import no other Tapline package/],
  ['terminal/src/main/fixture.ts', "import { probe } from '../../../shared/src/money.ts';", /by its name/],
  // The hardware through its entries only: no file of it from the terminal or the tests; the kiosk page only its browser entry.
  ['terminal/src/main/fixture.ts', "import { probe } from '@tapline/hardware/src/printer/index.ts';", /Import the hardware through its entries/],
  ['terminal/src/host/fixture.ts', "import type { probe } from '@tapline/hardware/src/clock.ts';", /Import the hardware through its entries/],
  ['terminal/src/renderer/lib/fixture.ts', "import type { probe } from '@tapline/hardware/src/printer/types.ts';", /Import the hardware through its entries/],
  ['terminal/src/renderer/lib/fixture.ts', "import { probe } from '@tapline/hardware';", /The kiosk page imports @tapline\/hardware\/browser/],
  ['terminal/src/renderer/lib/fixture.ts', "import { probe } from '@tapline/hardware/testing';", /The kiosk page imports @tapline\/hardware\/browser/],
  ['test/e2e/fixture.ts', "import { probe } from '@tapline/hardware/src/nfc/index.ts';", /Import the hardware through its entries/],
  // The front ends: web and the dashboard's pages import only shared; the dashboard's build may take web's builder.
  ['web/src/pages/fixture.ts', "import { probe } from '@tapline/sync-server/src/config.ts';", /web may import @tapline\/shared/],
  ['web/src/lib/fixture.ts', "import { probe } from '@tapline/dashboard/build';", /web may import @tapline\/shared/],
  ['dashboard/src/app/lib/fixture.ts', "import { probe } from '@tapline/web/cached-build';", /The dashboard's pages import only @tapline\/shared/],
  ['dashboard/src/app/lib/fixture.ts', "import { probe } from '@tapline/terminal';", /dashboard may import @tapline\/shared and @tapline\/web/],
  ['dashboard/src/app/lib/fixture.ts', "import { probe } from '../../../../shared/src/money.ts';", /by its name/],
  ['sync-server/src/modules/pos/fixture.ts', "import { probe } from '@tapline/web/build';", /sync-server may import @tapline\/shared/],
  // Tests reach the server through its package's exports, a module through its index.ts.
  ['test/rails/fixture.ts', "import { probe } from '../../sync-server/src/modules/bills/catalogue.ts';", /Tests import the server through @tapline\/sync-server's exports/],
  ['test/sdk/fixture.ts', "import { probe } from '../../sync-server/src/auth/secrets.ts';", /Tests import the server through @tapline\/sync-server's exports/],
  ['test/rails/fixture.ts', "import { probe } from '@tapline/sync-server/modules/payments/receiver.ts';", /Tests import a server module through its index\.ts/],
  // Scripts start and build the product through each package's entries.
  ['scripts/fixture.ts', "import { probe } from '../sync-server/src/modules/payments/index.ts';", /Scripts reach sync-server\/src through its entries only/],
  ['scripts/fixture.ts', "import { probe } from '../terminal/src/renderer/lib/money.ts';", /Scripts reach terminal\/src through its entries only/],
  ['scripts/fixture.ts', "import { probe } from '../dashboard/src/app/lib/api.ts';", /Scripts reach dashboard\/src through its entries only/],
  ['scripts/fixture.ts', "import { probe } from '../test/e2e/kiosk.ts';", /Scripts reach test through its entries only/],
  ['scripts/fixture.ts', "import { probe } from '../shared/src/money.ts';", /by their package names/],
];

const ALLOWED: Array<[string, string]> = [
  ['sync-server/src/modules/bills/fixture.ts', "import { probe } from '../wallets/index.ts';"],
  ['sync-server/src/modules/bills/fixture.ts', "import { probe } from '../../ledger/ledger.ts';"],
  ['sync-server/src/modules/bills/fixture.ts', "import { probe } from './store.ts';"],
  ['sync-server/src/auth/fixture.ts', "import { probe } from '../http/errors.ts';"],
  ['sync-server/src/ledger/fixture.ts', "import { probe } from '../metrics/registry.ts';"],
  ['sync-server/src/sync/fixture.ts', "import { probe } from '../modules/offline/index.ts';"],
  ['sync-server/src/modules/pos/fixture.test.ts', "import { probe } from '../../testing/server.ts';"],
  ['sync-server/src/testing/fixture.ts', "import { probe } from '../app.ts';"],
  ['sync-server/src/main.ts', "import { probe } from './app.ts';"],
  ['terminal/src/main/fixture.ts', "import { probe } from '@tapline/hardware';"],
  ['hardware/src/fixture.ts', "import { probe } from '@tapline/shared/money';"],
  ['test/e2e/fixture.ts', "import { probe } from '../../terminal/src/main/hardware-ipc.ts';"],
  ['terminal/src/main/fixture.ts', "import { probe } from '@tapline/hardware/testing';"],
  ['terminal/src/renderer/lib/fixture.ts', "import { probe } from '@tapline/hardware/browser';"],
  ['terminal/src/renderer/lib/fixture.test.ts', "import { probe } from '@tapline/hardware';"],
  ['test/e2e/fixture.ts', "import { probe } from '@tapline/hardware/testing';"],
  ['test/rails/fixture.ts', "import { probe } from '@tapline/sync-server/modules/bills';"],
  ['test/rails/fixture.ts', "import { probe } from '@tapline/sync-server/testing';"],
  ['web/src/pages/fixture.ts', "import { probe } from '@tapline/shared/money';"],
  ['dashboard/src/app/lib/fixture.ts', "import { probe } from '@tapline/shared/api';"],
  ['dashboard/src/fixture.ts', "import { probe } from '@tapline/web/cached-build';"],
  ['sync-server/src/testing/fixture.ts', "import { probe } from '@tapline/web/build';"],
  ['scripts/fixture.ts', "import { probe } from '../sync-server/src/main.ts';"],
  ['scripts/fixture.ts', "import { probe } from '../terminal/src/host/index.ts';"],
  ['scripts/fixture.ts', "import { probe } from '../web/src/build/cached-build.ts';"],
  ['scripts/fixture.ts', "import { probe } from '../test/fakes/momo/index.ts';"],
  ['scripts/fixture.ts', "import { probe } from '@tapline/shared/money';"],
];

describe('layering lint rules (eslint.layers.js)', () => {
  for (const [filePath, importLine, message] of FORBIDDEN) {
    it(`refuses in ${filePath}: ${importLine}`, async () => {
      const messages = await restrictedMessages(filePath, importLine);
      assert.equal(messages.length >= 1, true, `expected a no-restricted-imports error, got none`);
      assert.ok(messages.some((text) => message.test(text)), `no message matched ${message}: ${messages.join(' | ')}`);
      assert.ok(messages.every((text) => text.includes('docs/architecture.md, Layers')), 'every message points to the architecture note');
    });
  }
  for (const [filePath, importLine] of ALLOWED) {
    it(`allows in ${filePath}: ${importLine}`, async () => {
      assert.deepEqual(await restrictedMessages(filePath, importLine), []);
    });
  }
});

// The module-shape rule: no `.query(` call (SQL) outside a module's store files and the core folders that own SQL.
async function sqlMessages(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  assert.ok(result, 'ESLint answered');
  return result.messages.filter((message) => message.ruleId === 'no-restricted-syntax').map((message) => message.message);
}

const SQL_CALL = "export async function probe(db: { query: (sql: string) => Promise<unknown[]> }) {\n  return db.query('SELECT 1');\n}\n";
const TX_CALL = "export async function probe(ctx: { db: { query: (sql: string) => Promise<unknown[]> } }) {\n  return ctx.db.query('SELECT 1');\n}\n";
const REQUEST_QUERY = "export function probe(request: { query: { code: string } }) {\n  return request.query.code;\n}\n";

describe('module shape lint rule: SQL only in store files (eslint.layers.js)', () => {
  for (const [filePath, source] of [
    ['sync-server/src/modules/bills/service.ts', SQL_CALL],
    ['sync-server/src/modules/bills/routes.ts', TX_CALL],
    ['sync-server/src/modules/gift-cards/routes-admin.ts', SQL_CALL],
    // Not only routes and services: any file of a module that is not a store, and the surfaces.
    ['sync-server/src/modules/offline/policy.ts', TX_CALL],
    ['sync-server/src/modules/terminals/pairing.ts', SQL_CALL],
    ['sync-server/src/modules/gift-cards/jobs.ts', SQL_CALL],
    ['sync-server/src/sync/socket.ts', SQL_CALL],
    ['sync-server/src/web/routes.ts', SQL_CALL],
    ['sync-server/src/app.ts', SQL_CALL],
  ] as const) {
    it(`refuses a .query( call in ${filePath}`, async () => {
      const messages = await sqlMessages(filePath, source);
      assert.equal(messages.length, 1);
      assert.match(messages[0]!, /SQL lives in the module's store\.ts/);
      assert.match(messages[0]!, /docs\/architecture\.md, Module shape/);
    });
  }
  for (const [filePath, source] of [
    ['sync-server/src/modules/bills/store.ts', SQL_CALL],
    ['sync-server/src/modules/payments/store-steps.ts', TX_CALL],
    ['sync-server/src/modules/products/sales-store.ts', SQL_CALL],
    ['sync-server/src/ledger/ledger.ts', TX_CALL],
    ['sync-server/src/db/savepoint.ts', SQL_CALL],
    ['sync-server/src/events/outbox.ts', SQL_CALL],
    ['sync-server/src/testing/ledger.ts', SQL_CALL],
    ['sync-server/src/modules/gift-cards/routes-public.ts', REQUEST_QUERY],
    ['sync-server/src/modules/bills/service.test.ts', SQL_CALL],
  ] as const) {
    it(`allows ${filePath === 'sync-server/src/modules/gift-cards/routes-public.ts' ? 'request.query in routes' : `SQL in ${filePath}`}`, async () => {
      assert.deepEqual(await sqlMessages(filePath, source), []);
    });
  }
});

// The route-input rule: a module never casts a route's input, which its schema types through TypedApp.
const STATIC_CAST = "import type { Static } from 'typebox';\nexport function probe(body: unknown) {\n  return body as Static<typeof Body>;\n}\n";
const OPTIONAL_STATIC_CAST = "import type { Static } from 'typebox';\nexport function probe(body: unknown) {\n  return (body as Static<typeof Body> | undefined)?.graceHours;\n}\n";
const REQUEST_STATIC_CAST = "import type { Static } from 'typebox';\nexport function probe(request: { body: unknown }) {\n  return request.body as Static<typeof Body>;\n}\n";
const ANGLE_STATIC_CAST = "import type { Static } from 'typebox';\nexport function probe(value: unknown) {\n  return <Static<typeof Body>>value;\n}\n";
const PARAMS_CAST = "export function probe(request: { params: unknown }) {\n  return (request.params as { id: string }).id;\n}\n";
const TYPED_INPUT = "export function probe(request: { params: { id: string }; body: { pin: string } }) {\n  return [request.params.id, request.body.pin];\n}\n";
const OTHER_CAST = "export function probe(body: unknown) {\n  return { ...(body as object), qrPayload: undefined };\n}\n";

describe('route input lint rule: no casts of a route\'s input in a module (eslint.layers.js)', () => {
  for (const [filePath, source, message] of [
    ['sync-server/src/modules/gift-cards/routes-programs.ts', STATIC_CAST, /No `as Static<\.\.\.>` in a module/],
    ['sync-server/src/modules/merchants/routes.ts', OPTIONAL_STATIC_CAST, /No `as Static<\.\.\.>` in a module/],
    ['sync-server/src/modules/merchant-users/keys.ts', ANGLE_STATIC_CAST, /No `as Static<\.\.\.>` in a module/],
    ['sync-server/src/modules/links/routes.ts', PARAMS_CAST, /No cast of request\.body, request\.query or request\.params/],
    ['sync-server/src/modules/wearables/wallet-pay.ts', PARAMS_CAST, /No cast of request\.body, request\.query or request\.params/],
  ] as const) {
    it(`refuses ${source === PARAMS_CAST ? 'a cast of request.params' : 'a cast to Static<...>'} in ${filePath}`, async () => {
      const messages = await sqlMessages(filePath, source);
      assert.equal(messages.length, 1, messages.join(' | '));
      assert.match(messages[0]!, message);
      assert.match(messages[0]!, /docs\/architecture\.md, Module shape/);
    });
  }
  it('refuses request.body as Static<...> with both messages', async () => {
    const messages = await sqlMessages('sync-server/src/modules/products/routes.ts', REQUEST_STATIC_CAST);
    assert.equal(messages.length, 2, messages.join(' | '));
    assert.ok(messages.some((text) => /No `as Static<\.\.\.>` in a module/.test(text)));
    assert.ok(messages.some((text) => /No cast of request\.body, request\.query or request\.params/.test(text)));
  });
  it('keeps both rules in a routes file: a .query( call and a cast are each refused', async () => {
    const messages = await sqlMessages('sync-server/src/modules/bills/routes.ts', `${SQL_CALL}${PARAMS_CAST.replace('probe', 'probe2')}`);
    assert.equal(messages.length, 2, messages.join(' | '));
    assert.match(messages[0]!, /SQL lives in the module's store\.ts/);
    assert.match(messages[1]!, /No cast of request\.body, request\.query or request\.params/);
  });
  for (const [filePath, source] of [
    ['sync-server/src/modules/links/routes.ts', TYPED_INPUT],
    ['sync-server/src/modules/offline/routes.ts', OTHER_CAST],
    ['sync-server/src/modules/gift-cards/routes-programs.test.ts', STATIC_CAST],
    ['sync-server/src/http/idempotency.ts', PARAMS_CAST],
  ] as const) {
    it(`allows ${source === TYPED_INPUT ? 'typed request input' : source === OTHER_CAST ? 'a cast of something else' : 'a cast'} in ${filePath}`, async () => {
      assert.deepEqual(await sqlMessages(filePath, source), []);
    });
  }
});
