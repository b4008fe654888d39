// The three test tiers (test/README.md, "Tiers"), told from a test file's path and source:
// - unit: no database, no network, no browser, no child process: `npm run test:unit`, seconds;
// - db: the server's modules and routes on both databases (an in-process server on a loopback
//   port, real HTTP): `npm run test:db`;
// - e2e: Chromium, socket.io, server processes, chaos and failover clusters, builds, benches'
//   smokes and the SDKs: `npm run test:e2e`.
// `npm test` runs all three. A file can say its tier in its first lines (`// test-tier: e2e`)
// where the source does not show it.
import { readFileSync } from 'node:fs';

export const TIERS = ['unit', 'db', 'e2e'];

const E2E_PATH = /(^|\/)(e2e|chaos|failover|backup|bench|build)\/|\.e2e\.test\.ts$|build\.test\.ts$|^sdk\//;
/** Browsers, sockets, processes, linters and bundlers. */
const E2E_SOURCE = /playwright-core|socket\.io-client|node:child_process|serverProcess|startServerProcess|spawnServerProcess|launchChromium|connectTerminal|from '\.\/browser\.ts'|from '\.\.\/e2e\/|\bWebSocket\b|\bfork\(|eslint|from 'vite'|esbuild|killAndAwaitDeath|nodeUtilityProcess/;
/** Databases, servers and HTTP. */
const DB_SOURCE = /useTestServer|databaseTargets|openDatabase|TEST_DATABASE_URL|PGlite|createPostgresDatabase|\bpg\.Pool|new Pool\(|\bfetch\(|\.listen\(|createServer\(/;
const DECLARED = /^\/\/ test-tier: (unit|db|e2e)\b/m;

/** The tier of a test file (`path` relative to the repository root). */
export function tierOf(path, source = readFileSync(path, 'utf8')) {
  const declared = DECLARED.exec(source.slice(0, 2000));
  if (declared) return declared[1];
  if (E2E_PATH.test(path) || E2E_SOURCE.test(source)) return 'e2e';
  if (DB_SOURCE.test(source)) return 'db';
  return 'unit';
}
