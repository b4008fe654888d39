// The sync server as `npm run server` starts it (same environment, same "listening on" line), with
// one addition for the SDKs' tests in other languages: Kenya's billers pay through a held biller
// (held-biller.ts) that a control listener on another loopback port drives:
//   POST /hold      holds the next bill payment in flight (answers once it has reached the biller)
//   POST /release   lets it finish
//   GET  /calls     {"calls": n}, the payments the biller was asked to make
// Started by sdk/python/tests/server.py; never part of a real deployment.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { buildApp } from '@tapline/sync-server/app';
import { loadConfig } from '@tapline/sync-server/config';
import { openDatabase } from '@tapline/sync-server/db/open';
import { heldBiller } from './held-biller.ts';

const config = loadConfig();
if (!config.adminToken) throw new Error('held-biller-server: set ADMIN_TOKEN');
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDir });
const biller = heldBiller();
const { app } = await buildApp({ config, db, adminTokenHash: createHash('sha256').update(config.adminToken).digest('hex'), billerProviders: [biller.provider] });
await app.listen({ port: config.port, host: config.host });
const address = app.server.address();
const url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;

let held: ReturnType<typeof biller.holdNext> | undefined;
const control = createServer((request, response) => {
  const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (request.method === 'POST' && request.url === '/hold') {
    held = biller.holdNext();
    // Answered at once; the caller polls /calls or sends its request and waits with /entered.
    return answer(200, { held: true });
  }
  if (request.method === 'GET' && request.url === '/entered') {
    if (!held) return answer(409, { error: 'nothing is held' });
    const timeout = setTimeout(() => answer(504, { entered: false }), 20_000);
    void held.entered.then(() => {
      clearTimeout(timeout);
      answer(200, { entered: true });
    });
    return;
  }
  if (request.method === 'POST' && request.url === '/release') {
    held?.release();
    held = undefined;
    return answer(200, { released: true });
  }
  if (request.method === 'GET' && request.url === '/calls') return answer(200, { calls: biller.calls() });
  return answer(404, { error: 'unknown' });
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
const controlAddress = control.address();
console.log(`held biller control on http://127.0.0.1:${typeof controlAddress === 'object' && controlAddress ? controlAddress.port : 0}`);
console.log(`Tapline sync server listening on ${url} (database: ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}; held biller)`);

const shutdown = () => {
  held?.release();
  control.close();
  void app.close().then(() => db.close()).then(() => process.exit(0), () => process.exit(1));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
