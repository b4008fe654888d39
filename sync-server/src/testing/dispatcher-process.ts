// A dispatcher in its own process, for the test that kills one mid-delivery:
//   SECRETS_KEY=<hex> node --import tsx dispatcher-process.ts <postgres-url> <timeoutMs>
// It runs one pass over the outbox and prints "claimed" lines as it goes.
import { createSecretBox, parseSecretsKey } from '../auth/secret-box.ts';
import { PostgresDatabase } from '../db/postgres.ts';
import { EventDispatcher, scaledRetryDelays } from '../events/dispatcher.ts';

const [url, timeout] = process.argv.slice(2);
if (!url) throw new Error('usage: dispatcher-process.ts <postgres-url> <timeoutMs>');
const key = parseSecretsKey(process.env.SECRETS_KEY ?? '');
if (!key) throw new Error('SECRETS_KEY (the test server\'s) is required');
const db = new PostgresDatabase({ connectionString: url, poolSize: 2 });
const dispatcher = new EventDispatcher({ db, secrets: createSecretBox(key), now: () => new Date(), retryDelaysMs: scaledRetryDelays(1), timeoutMs: Number(timeout ?? 10_000), pollIntervalMs: 1000 });
const attempted = await dispatcher.runOnce();
console.log(`attempted ${attempted}`);
await db.close();
