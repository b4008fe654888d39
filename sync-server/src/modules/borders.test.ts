// test-tier: unit
// Modules keep their borders (docs/architecture.md, "Layers" and "Module shape"): what the import
// lint (eslint.layers.js) cannot see file by file, this test sees across the whole folder.
// It reads source files only.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const MODULES = dirname(fileURLToPath(import.meta.url));
const SRC = dirname(MODULES);

/** The production files under `dir` with one of these endings (tests may read across any border). */
function productionFiles(dir: string, endings: readonly string[] = ['.ts']): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : productionFiles(path, endings);
    return endings.some((ending) => name.endsWith(ending)) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const moduleNames = readdirSync(MODULES).filter((name) => statSync(join(MODULES, name)).isDirectory()).sort();

/** Every relative specifier a file imports or re-exports (static, side-effect and dynamic). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']*)'/g;
function relativeSpecifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((match) => match[1]!);
}

/** module -> the other modules it imports, each with the files that import it. */
function moduleGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const name of moduleNames) {
    const edges = new Map<string, string[]>();
    for (const file of productionFiles(join(MODULES, name))) {
      for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
        const target = relative(MODULES, resolve(dirname(file), specifier));
        if (target.startsWith('..')) continue;
        const other = target.split('/')[0]!;
        if (other === name || !moduleNames.includes(other)) continue;
        edges.set(other, [...(edges.get(other) ?? []), relative(MODULES, file)]);
      }
    }
    graph.set(name, edges);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan): each holds a cycle. */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const other of graph.get(node)!.keys()) {
      if (!index.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node)!, low.get(other)!));
      } else if (stack.includes(other)) low.set(node, Math.min(low.get(node)!, index.get(other)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const name of moduleNames) if (!index.has(name)) visit(name);
  return found;
}

/**
 * SQL on the tables that only the core writes: the ledger's (ledger/ posts transfers through the
 * database functions and takes the ledger's row locks in its lock order) and the outbox's (events/
 * enqueues events and reads deliveries). Upper-case SQL keywords, as all SQL here is written.
 */
const CORE_TABLES = [
  { owner: 'ledger/', pattern: /\bledger_(?:accounts|transfers|postings)\b/ },
  { owner: 'events/', pattern: /\b(?:FROM|JOIN|INTO|UPDATE)\s+events\b|\bevent_deliver(?:ies|y_attempts)\b/ },
];
/** Where that SQL may be: the owners, the database functions, the migrations that create the tables, and testing/ (test helpers read balances and events to assert on them). */
const CORE_TABLE_SQL_ALLOWED = ['ledger/', 'events/', 'db/functions/', 'db/migrations/', 'testing/'];

/** A source without its comments (a comment may name a table it does not touch). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*(?:\/\/|--).*$/gm, '');
}

/** The tables a source writes: INSERT INTO, UPDATE and DELETE FROM (not ON CONFLICT's DO UPDATE). */
const WRITE = /\b(?:INSERT\s+INTO|(?<!DO\s)UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)\b/g;
function writtenTables(source: string): string[] {
  return [...source.matchAll(WRITE)].map((match) => match[1]!);
}

/** table -> the modules whose production files write it. */
function tableWriters(): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  for (const name of moduleNames) {
    for (const file of productionFiles(join(MODULES, name))) {
      for (const table of writtenTables(withoutComments(readFileSync(file, 'utf8')))) {
        writers.set(table, new Set([...(writers.get(table) ?? []), name]));
      }
    }
  }
  return writers;
}

/** A module's HTTP files and its SQL files, by their names (docs/architecture.md, Module shape). */
const ROUTES_FILE = /^(?:routes(?:-[a-z0-9-]+)?|[a-z0-9-]+-routes)\.ts$/;
const STORE_FILE = /^(?:store(?:-[a-z0-9-]+)?|[a-z0-9-]+-store)\.ts$/;

/**
 * Modules whose routes still import their own store files, written before routes went through
 * their service. Each entry says what its routes take from the store; it goes when those calls
 * move behind the service (a plain read moves too: one shape everywhere). Nothing is added: the
 * list only shrinks, and the test fails while it names a module that no longer needs its entry.
 */
const ROUTES_IMPORTING_STORE_ALLOWED: ReadonlyMap<string, string> = new Map([
  ['agent', 'cash-routes.ts: listAgentCash (cash-store.ts)'],
  ['bills', 'findBill, listBills'],
  ['checkout', 'publishable keys: insert, list, revoke'],
  ['gift-cards', 'routes-admin, routes-issuer, routes-programs: cards, redemptions, programs, reward rules'],
  ['links', 'findLink, listLinks, deactivateLink'],
  ['merchant-users', 'users, roles, sessions and TOTP: reads and writes'],
  ['offline', 'findOfflinePayment, listOfflinePayments, findTerminalForSync'],
  ['payments', 'findPayment, listPayments, listPaymentsNeedingAttention'],
  ['payouts', 'listPayouts, findSettlementAccount, listSettlementAccounts'],
  ['payroll', 'findRun, listRuns, listItems'],
  ['shop', 'routes-admin: findProduct, runningSales'],
  ['subscriptions', 'listSubscriptions, listCharges, row types'],
  ['wallet-money', 'findWithdrawal, listWithdrawals, listBankTransfers (virtual-accounts-store.ts)'],
  ['wallets', 'findWallet, findWalletById, wallet sessions: insert, revoke'],
  ['wearables', 'routes, holder-routes: wearables, tag merchants and no-PIN limits: reads and writes'],
]);

/** module -> `routes file -> store file` for each import of the module's own store files by its routes files. */
function routesImportingStore(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const name of moduleNames) {
    const folder = join(MODULES, name);
    for (const file of productionFiles(folder).filter((path) => ROUTES_FILE.test(basename(path)))) {
      for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier);
        if (relative(folder, target).startsWith('..') || !STORE_FILE.test(basename(target))) continue;
        found.set(name, [...(found.get(name) ?? []), `${relative(MODULES, file)} -> ${relative(MODULES, target)}`]);
      }
    }
  }
  return found;
}

/**
 * Modules whose rules live in files named by job instead of one service.ts, because one file
 * would hold several jobs (docs/architecture.md, Module shape): agent (cash in and out, cash-out
 * codes, the float: each with its routes, rules and store), shop (catalogue, checkout, orders,
 * pricing, flash sales, referrals, reviews, stock alerts), offline (vouchers, keys, a push's
 * settlers, the offline policy and limits) and push (no routes: the settlers' contract and the
 * capture-time rules that offline and till-staff share).
 */
const JOB_NAMED_FILES = ['agent', 'offline', 'push', 'shop'];

describe('module borders', () => {
  it('reads the module graph (the test sees real imports)', () => {
    const graph = moduleGraph();
    assert.ok(moduleNames.length > 20, `modules found: ${moduleNames.join(', ')}`);
    // Known imports, so a parser that finds nothing cannot pass the cycle test below.
    assert.ok(graph.get('admin')!.has('wallets'), 'admin -> wallets');
    assert.ok(graph.get('payments')!.has('fx'), 'payments -> fx');
  });

  it('modules import each other without cycles', () => {
    const graph = moduleGraph();
    const lines = cycles(graph).map((component) => {
      const inside = component.flatMap((from) =>
        [...graph.get(from)!].filter(([to]) => component.includes(to)).map(([to, files]) => `  ${from} -> ${to} (${[...new Set(files)].join(', ')})`),
      );
      return `cycle among ${component.join(', ')}:\n${inside.join('\n')}`;
    });
    assert.equal(lines.length, 0, `Module imports run in a cycle: move the shared piece down to its owner (docs/architecture.md, Layers).\n${lines.join('\n')}`);
  });

  it('only ledger/ and events/ touch the ledger tables and the outbox (and the database functions)', () => {
    const found = productionFiles(SRC, ['.ts', '.sql'])
      .map((file) => relative(SRC, file))
      .filter((path) => !CORE_TABLE_SQL_ALLOWED.some((folder) => path.startsWith(folder)))
      .flatMap((path) => {
        const source = withoutComments(readFileSync(join(SRC, path), 'utf8'));
        return CORE_TABLES.filter(({ pattern }) => pattern.test(source)).map(({ owner }) => `${path} (through ${owner})`);
      });
    assert.equal(found.length, 0, `SQL on the ledger's or the outbox's tables outside their owner: call ledger/ or events/ instead.\n${found.join('\n')}`);
  });

  it('sees SQL on those tables where it is (the check is not blind)', () => {
    const touching = (path: string) => CORE_TABLES.some(({ pattern }) => pattern.test(withoutComments(readFileSync(join(SRC, path), 'utf8'))));
    assert.deepEqual(['ledger/ledger.ts', 'events/outbox.ts', 'events/deliveries.ts', 'db/functions/pos_tap.sql'].filter(touching), ['ledger/ledger.ts', 'events/outbox.ts', 'events/deliveries.ts', 'db/functions/pos_tap.sql']);
  });

  it("only a table's owner writes it: every table is written by one module (the others call its index.ts)", () => {
    const shared = [...tableWriters()].filter(([, modules]) => modules.size > 1).map(([table, modules]) => `${table}: ${[...modules].sort().join(', ')}`);
    assert.deepEqual(shared, [], 'Tables written by more than one module: move the writes into the owner\'s store and export them from its index.ts');
  });

  it('sees the writers where they are (the check is not blind)', () => {
    const writers = tableWriters();
    assert.deepEqual([...(writers.get('terminals') ?? [])], ['terminals']);
    assert.deepEqual([...(writers.get('wallet_notifications') ?? [])], ['wallets']);
    assert.deepEqual([...(writers.get('pos_collections') ?? [])], ['collections']);
    assert.ok(writers.size > 40, `tables written: ${writers.size}`);
    assert.deepEqual(writtenTables("INSERT INTO a (x) VALUES (1) ON CONFLICT (x) DO UPDATE SET x = 2; UPDATE b SET y = 1; DELETE FROM c"), ['a', 'b', 'c']);
  });

  it('every module has its public entry (index.ts) and a README.md saying what it owns', () => {
    const missing = moduleNames.flatMap((name) => ['index.ts', 'README.md'].filter((file) => !existsSync(join(MODULES, name, file))).map((file) => `${name}/${file}`));
    assert.deepEqual(missing, []);
  });

  it('every module holds its rules in service.ts, or in files named by job (the few listed)', () => {
    const withoutService = moduleNames.filter((name) => !existsSync(join(MODULES, name, 'service.ts')));
    const unlisted = withoutService.filter((name) => !JOB_NAMED_FILES.includes(name));
    assert.deepEqual(unlisted, [], 'Modules without a service.ts: put the rules and the store calls of their routes in a service.ts factory (docs/architecture.md, Module shape)');
    const stale = JOB_NAMED_FILES.filter((name) => !withoutService.includes(name));
    assert.deepEqual(stale, [], 'These modules have a service.ts now (or are gone): take them off JOB_NAMED_FILES');
  });

  it("a module's routes do not import its own store files: they call its service", () => {
    const found = routesImportingStore();
    const unlisted = [...found].filter(([name]) => !ROUTES_IMPORTING_STORE_ALLOWED.has(name)).flatMap(([, imports]) => imports);
    assert.deepEqual(unlisted, [], "Routes importing their module's store: call the module's service instead, which calls the store (docs/architecture.md, Module shape)");
    const stale = [...ROUTES_IMPORTING_STORE_ALLOWED.keys()].filter((name) => !found.has(name));
    assert.deepEqual(stale, [], "These modules' routes no longer import their store: take them off ROUTES_IMPORTING_STORE_ALLOWED (the list only shrinks)");
  });

  it('tells routes files and store files by their names (the check is not blind)', () => {
    assert.deepEqual(['routes.ts', 'routes-admin.ts', 'cash-routes.ts', 'holder-routes.ts', 'service.ts', 'routes.test.ts', 'reroutes.ts'].filter((name) => ROUTES_FILE.test(name)), ['routes.ts', 'routes-admin.ts', 'cash-routes.ts', 'holder-routes.ts']);
    assert.deepEqual(['store.ts', 'store-steps.ts', 'sales-store.ts', 'virtual-accounts-store.ts', 'restore.ts', 'store.test.ts', 'service.ts'].filter((name) => STORE_FILE.test(name)), ['store.ts', 'store-steps.ts', 'sales-store.ts', 'virtual-accounts-store.ts']);
    const found = routesImportingStore();
    // Multi-line and type-only imports count: the two forms an import of a store most often takes.
    assert.ok(found.get('gift-cards')?.includes('gift-cards/routes-programs.ts -> gift-cards/store.ts'), JSON.stringify(found.get('gift-cards')));
    // No routes file imports only a store's types any more: the form is checked on its own.
    assert.deepEqual(relativeSpecifiers("import type { ProductScope } from './store.ts';\nimport { a } from '../wallets/index.ts';"), ['./store.ts', '../wallets/index.ts']);
  });
});
