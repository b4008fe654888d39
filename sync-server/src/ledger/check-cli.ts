// `npm run ledger:check`: proves the ledger's invariants on a live database (DATABASE_URL, or the
// embedded database in DATA_DIR). Exits 1 on any violation, 2 when it cannot run.
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open.ts';
import { checkLedger } from './check.ts';

const config = loadConfig();
let db;
try {
  db = await openDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDir });
} catch (error) {
  console.error(`ledger:check could not open the database: ${(error as Error).message}`);
  process.exit(2);
}
try {
  const report = await checkLedger(db);
  console.log(`ledger:check ${report.transfers} transfers, ${report.postings} postings, ${report.accounts} accounts`);
  if (report.violations.length === 0) {
    console.log('ledger:check OK: every transfer balances per currency, every balance equals its postings, no wallet is below zero');
  } else {
    for (const violation of report.violations) console.error(`VIOLATION ${violation.rule}: ${violation.subject}: ${violation.detail}`);
    console.error(`ledger:check FAILED with ${report.violations.length} violation(s)`);
    process.exitCode = 1;
  }
} finally {
  await db.close();
}
