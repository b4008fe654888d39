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
