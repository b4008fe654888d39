// The allowed imports, as lint rules: an import that runs back up a layer fails `npm run lint`.
// docs/architecture.md (Layers) explains them; eslint.layers.test.ts proves that a forbidden import
// fails. Every rule is a `no-restricted-imports` regex on the import specifier, written for the
// directory of the file being linted (a relative specifier means something else one folder down).
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));
const SERVER_SRC = 'sync-server/src';
const WHY = 'see docs/architecture.md, Layers';

// ---------------------------------------------------------------------------------------------
// Packages: shared <- hardware <- terminal, shared <- sync-server, shared <- web <- dashboard (its
// build takes web's cached Vite builder; its pages import only shared); the SDK stands alone;
// test/ (end-to-end tests) may import any package (the hardware through its entries, below);
// scripts/ start and build the product through each package's entries (below).
const PACKAGES = {
  shared: [],
  hardware: ['shared'],
  terminal: ['shared', 'hardware'],
  'sync-server': ['shared'],
  web: ['shared'],
  dashboard: ['shared', 'web'],
  'sdk/typescript': [],
};
const ALL_PACKAGES = ['shared', 'hardware', 'terminal', 'sync-server', 'web', 'dashboard', 'sdk', 'test'];

function packagePatterns(name, extra = []) {
  const allowed = [...PACKAGES[name], ...extra];
  const forbidden = ALL_PACKAGES.filter((other) => !allowed.includes(other) && !name.startsWith(other));
  return [
    {
      regex: `^@tapline/(${forbidden.join('|')})(/|$)`,
      message: `${name} may import ${allowed.length ? allowed.map((p) => `@tapline/${p}`).join(' and ') : 'no other Tapline package'} (${WHY}).`,
    },
    {
      // Another package's files by relative path: always through its package name instead.
      regex: `^(\\.\\./)+(${ALL_PACKAGES.join('|')})/(src|kiosk|typescript)(/|$)`,
      message: `Import another package by its name (@tapline/...), never by a relative path (${WHY}).`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Inside the server. Core layers, lowest first: a layer imports only layers below it (and
// itself). Paths are relative to sync-server/src; a folder ends with '/'.
const CORE_LAYERS = [
  ['db/'],
  ['jobs/', 'metrics/registry.ts'],
  ['ledger/'],
  ['http/'],
  ['auth/'],
  ['events/'],
  ['metrics/plugin.ts', 'metrics/listener.ts', 'config.ts', 'context.ts'],
];
// Above the core: modules (modules/<name>/), then the surfaces that serve them (the socket.io
// endpoint, the HTML pages, the OpenAPI document), then the wiring (app.ts) and the entry
// points (main.ts, the ledger check CLI). testing/ may import anything; nothing imports testing/
// but tests and scripts, and nothing imports app.ts but main.ts and testing/.
const SURFACES = ['sync/', 'web/', 'openapi/'];
const ENTRY_FILES = ['main.ts', 'ledger/check-cli.ts'];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The regex of a specifier from directory `dir` (relative to src) that reaches `target` (a src path). */
function reach(dir, target) {
  let prefix = relative(dir, '.') || '.';
  if (!prefix.startsWith('.')) prefix = `./${prefix}`;
  const tail = target.endsWith('/') ? escape(target) : `${escape(target)}$`;
  return `^${escape(prefix)}/${tail}`;
}

function forbid(dir, targets, message) {
  return targets.flatMap((target) => {
    const same = !target.endsWith('/') && dirname(target) === dir ? [{ regex: `^\\./${escape(target.slice(dir.length + 1))}$`, message }] : [];
    return [{ regex: reach(dir, target), message }, ...same];
  });
}

/** Another module's files other than its index.ts, from a directory outside modules/. */
function moduleInternals(dir) {
  const prefix = reach(dir, 'modules/');
  return { regex: `${prefix}[^/]+/(?!index\\.ts$)`, message: `Import a module only through its index.ts (${WHY}).` };
}

const noApp = (dir) => forbid(dir, ['app.ts', 'main.ts'], `Only main.ts and testing/ import app.ts (tests build the app through testing/; ${WHY}).`);
const noTesting = (dir) => forbid(dir, ['testing/'], `Only tests and scripts import testing/ (module test helpers live in testing/; ${WHY}).`);

/** The core layer of a src path, -1 outside the core (a metrics file not listed is at the top). */
function layerOfCore(path) {
  const layer = CORE_LAYERS.findIndex((entries) => entries.some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry)));
  return layer === -1 && path.startsWith('metrics/') ? CORE_LAYERS.length - 1 : layer;
}

/** The server's restricted specifiers for production files in `dir` (relative to src). */
function serverPatterns(dir) {
  const top = dir === '.' ? '' : `${dir.split('/')[0]}/`;
  if (top === 'testing/') return [];
  if (top === 'modules/') {
    return [
      { regex: '^\\.\\./[^./][^/]*/(?!index\\.ts$)', message: `A module imports another module only through its index.ts (${WHY}).` },
      ...forbid(dir, SURFACES, `Modules do not import sync/, web/ or openapi/: those serve the modules (${WHY}).`),
      ...noApp(dir),
      ...noTesting(dir),
    ];
  }
  const layer = layerOfCore(`${dir}/x`);
  if (layer !== -1) return corePatterns(dir, layer);
  // The surfaces, and src/ itself (app.ts, main.ts, config.ts and context.ts have rules of their own, below).
  return [moduleInternals(dir), ...noApp(dir), ...noTesting(dir)];
}

function corePatterns(dir, layer) {
  const above = CORE_LAYERS.slice(layer + 1).flat();
  return [
    ...forbid(dir, above, `A core layer imports only the layers below it: ${CORE_LAYERS.map((l) => l.join(' ')).join(' < ')} (${WHY}).`),
    ...forbid(dir, ['modules/', ...SURFACES], `The core (db, jobs, ledger, http, auth, events, metrics, config, context) never imports modules/, sync/, web/ or openapi/ (${WHY}).`),
    ...noApp(dir),
    ...noTesting(dir),
  ];
}

function serverDirectories(dir = SERVER_SRC) {
  const entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  const found = entries.some((entry) => entry.isFile() && entry.name.endsWith('.ts')) ? [dir] : [];
  for (const entry of entries) if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...serverDirectories(`${dir}/${entry.name}`));
  return found;
}

function restricted(patterns) {
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const serverPackage = packagePatterns('sync-server');
// The test server builds the pages it serves (@tapline/web's build), as `npm start` does.
const testingPackage = packagePatterns('sync-server', ['web']);
const serverBlocks = [];
for (const full of serverDirectories()) {
  const dir = relative(SERVER_SRC, full) || '.';
  const ownPackage = dir.startsWith('testing') ? testingPackage : serverPackage;
  serverBlocks.push({ files: [`${full}/*.ts`], rules: restricted([...ownPackage, ...serverPatterns(dir)]) });
  // Tests may read any layer (they test across them) but build the app through testing/.
  serverBlocks.push({ files: [`${full}/*.test.ts`], rules: restricted([...ownPackage, ...(dir.startsWith('testing') ? [] : noApp(dir))]) });
}
// The files of src/ itself and the split metrics folder, one by one.
for (const path of ['config.ts', 'context.ts', 'metrics/plugin.ts', 'metrics/listener.ts', 'metrics/registry.ts']) {
  const dir = dirname(path);
  serverBlocks.push({ files: [`${SERVER_SRC}/${path}`], rules: restricted([...serverPackage, ...corePatterns(dir, layerOfCore(path))]) });
}
serverBlocks.push({ files: [`${SERVER_SRC}/app.ts`], rules: restricted([...serverPackage, moduleInternals('.'), ...forbid('.', ['main.ts'], `Nothing imports main.ts (${WHY}).`), ...noTesting('.')]) });
for (const path of ENTRY_FILES) {
  serverBlocks.push({ files: [`${SERVER_SRC}/${path}`], rules: restricted([...serverPackage, ...noTesting(dirname(path))]) });
}
serverBlocks.push({ files: ['sync-server/scripts/**/*.ts'], rules: restricted(serverPackage) });

// ---------------------------------------------------------------------------------------------
// One module shape: a module's SQL lives in its store files (`store.ts`, `<job>-store.ts` or
// `store-<job>.ts`); its routes, services, jobs and helpers call the store. By syntax: any
// `x.query(...)` call anywhere in the server's source fails, except on `request` (Fastify's parsed
// query string is a property, never called, but a helper named so would be HTTP, not SQL), in a
// module's store files, in tests, and in the core folders that own their tables and the database
// functions: db/, ledger/, auth/, events/, http/, metrics/ and testing/. So modules/, sync/,
// web/, openapi/ and the wiring hold no SQL.
const QUERY_CALL = "CallExpression[callee.type='MemberExpression'][callee.property.name='query']:not([callee.object.name='request'])";

// Route inputs are typed by their schemas: modules register routes on TypedApp (the TypeBox type
// provider), so `request.body`, `query` and `params` already have the schemas' types. A cast
// would throw that away (and silently disagree with the schema), so none is allowed in a
// module's production files: `x as Static<...>` (or `<Static<...>>x`), and any cast of
// `request.body`, `request.query` or `request.params`.
const CAST = ':matches(TSAsExpression, TSTypeAssertion)';
const ROUTE_INPUT_CASTS = [
  {
    selector: `${CAST} > .typeAnnotation TSTypeReference[typeName.name='Static'], ${CAST} > TSTypeReference.typeAnnotation[typeName.name='Static']`,
    message: 'No `as Static<...>` in a module: a route\'s schema types its input through TypedApp; give a helper the typed value (see docs/architecture.md, Module shape).',
  },
  {
    selector: `${CAST} > MemberExpression.expression[object.name='request'][property.name=/^(body|query|params)$/]`,
    message: 'No cast of request.body, request.query or request.params: the route\'s schema types them through TypedApp (see docs/architecture.md, Module shape).',
  },
];
const routeInputCasts = {
  files: [`${SERVER_SRC}/modules/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: { 'no-restricted-syntax': ['error', ...ROUTE_INPUT_CASTS] },
};

const sqlOutsideStore = {
  files: [`${SERVER_SRC}/**/*.ts`],
  ignores: [
    '**/*.test.ts',
    ...['store.ts', '*-store.ts', 'store-*.ts'].map((name) => `${SERVER_SRC}/modules/*/${name}`),
    ...['db', 'ledger', 'auth', 'events', 'http', 'metrics', 'testing'].map((folder) => `${SERVER_SRC}/${folder}/**`),
  ],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: QUERY_CALL, message: "SQL lives in the module's store.ts (or <job>-store.ts, store-<job>.ts): routes, services and jobs call the store (see docs/architecture.md, Module shape)." },
    ],
  },
};

// A module's files outside its store meet both rules above. A later block's no-restricted-syntax
// replaces an earlier one's for the files both match, so this block repeats them together.
const moduleFilesOutsideStore = {
  files: [`${SERVER_SRC}/modules/**/*.ts`],
  ignores: ['**/*.test.ts', ...['store.ts', '*-store.ts', 'store-*.ts'].map((name) => `${SERVER_SRC}/modules/*/${name}`)],
  rules: { 'no-restricted-syntax': ['error', sqlOutsideStore.rules['no-restricted-syntax'][1], ...ROUTE_INPUT_CASTS] },
};

// ---------------------------------------------------------------------------------------------
// The hardware's public entries (hardware/package.json "exports"): `@tapline/hardware` (Node: the
// kiosk's main process, the hardware host, tests), `@tapline/hardware/browser` (the kiosk page:
// the bridge client and the types that cross the bridge, no Node module) and
// `@tapline/hardware/testing` (fakes for tests). The terminal and the tests import nothing deeper.
const HARDWARE_ENTRIES = '@tapline/hardware, @tapline/hardware/browser (the kiosk page) or @tapline/hardware/testing (tests)';
const hardwareDeep = {
  regex: '^@tapline/hardware/(?!(browser|testing)$)',
  message: `Import the hardware through its entries: ${HARDWARE_ENTRIES}, never a file of it (${WHY}).`,
};
const hardwareOutsideBrowser = {
  regex: '^@tapline/hardware(/testing)?$',
  message: `The kiosk page imports @tapline/hardware/browser: the Node entry pulls in serialport, the NFC driver and node:net (${WHY}).`,
};

// ---------------------------------------------------------------------------------------------
// The repository's scripts (npm start, the build, the test runner, the rails' fakes) start and
// build the product through each package's entry, never a file inside it: the server's main.ts
// and build, the kiosk host's index.ts and the Electron build, the dashboard's and web's builds,
// the fakes' index.ts. A script that needs more asks the package to export it.
const SCRIPT_ENTRIES = [
  ['sync-server/src', '(main\\.ts|build/server-build\\.ts)'],
  ['terminal/src', '(host/index\\.ts|build/electron-build\\.ts)'],
  ['dashboard/src', 'build\\.ts'],
  ['web/src', '(build\\.ts|build/cached-build\\.ts)'],
  ['test', 'fakes/[^/]+/index\\.ts'],
];
const scriptEntries = [
  ...SCRIPT_ENTRIES.map(([folder, entries]) => ({
    regex: `^\\.\\./${folder}/(?!${entries}$)`,
    message: `Scripts reach ${folder} through its entries only (${entries.replaceAll('\\', '')}): export what a script needs there (${WHY}).`,
  })),
  {
    regex: '^(\\.\\./)+(shared|hardware|sdk)/',
    message: `Scripts import shared, hardware and the SDK by their package names (@tapline/...), never by a relative path (${WHY}).`,
  },
];

export default [
  ...['shared', 'hardware', 'terminal', 'sdk/typescript', 'web'].map((name) => ({
    files: [`${name}/**/*.{ts,js,mjs,svelte}`],
    rules: restricted([...packagePatterns(name), ...(name === 'terminal' ? [hardwareDeep] : [])]),
  })),
  // The kiosk page's own files (its tests run in Node and may take the Node entry and the fakes).
  {
    files: ['terminal/src/renderer/**/*.{ts,js,mjs,svelte}'],
    ignores: ['**/*.test.ts'],
    rules: restricted([...packagePatterns('terminal'), hardwareDeep, hardwareOutsideBrowser]),
  },
  // The dashboard's build may take web's cached builder; its pages (the browser) only shared.
  { files: ['dashboard/**/*.{ts,js,mjs,svelte}'], rules: restricted(packagePatterns('dashboard')) },
  {
    files: ['dashboard/src/app/**/*.{ts,js,mjs,svelte}'],
    rules: restricted([...packagePatterns('dashboard'), { regex: '^@tapline/web(/|$)', message: `The dashboard's pages import only @tapline/shared: @tapline/web is its build's (${WHY}).` }]),
  },
  // Tests reach the server through @tapline/sync-server's exports (its testing/ entry, app, the
  // ledger, a module's index.ts as @tapline/sync-server/modules/<name>), never a file inside it.
  {
    files: ['test/**/*.{ts,js,mjs}'],
    rules: restricted([
      hardwareDeep,
      { regex: '^(\\.\\./)+sync-server/src/', message: `Tests import the server through @tapline/sync-server's exports (testing, app, ledger/*, modules/<name>), never a file of it by path (${WHY}).` },
      { regex: '^@tapline/sync-server/(src/|modules/[^/]+/)', message: `Tests import a server module through its index.ts (@tapline/sync-server/modules/<name>), never a file inside it (${WHY}).` },
    ]),
  },
  { files: ['scripts/**/*.{ts,js,mjs}'], rules: restricted(scriptEntries) },
  ...serverBlocks,
  routeInputCasts,
  sqlOutsideStore,
  moduleFilesOutsideStore,
];

/** For the test: the directories the server rules cover. */
export const coveredServerDirectories = serverDirectories;
