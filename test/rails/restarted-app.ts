// A second app on a test server's database, as a restarted server would be: the same config and
// providers, none of the first process's memory (an adapter's remembered pushes, its caches), no
// background jobs. The caller closes it (`app.close()`).
import { TEST_SECRETS_KEY_HEX, type TestServer, buildApp } from '@tapline/sync-server/testing';

export function restartedApp(server: TestServer, now: () => Date, providerEnv: Record<string, string>) {
  return buildApp({
    config: server.config,
    db: server.db,
    adminTokenHash: 'unused',
    secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'),
    logger: false,
    backgroundJobs: false,
    now,
    providerEnv,
  });
}
