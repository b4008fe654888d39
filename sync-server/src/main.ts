import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError, configWarnings, loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { ensureAdminToken } from './auth/admin-token.ts';
import type { Database } from './db/database.ts';
import { openDatabase } from './db/open.ts';
import { DataDirectoryLockedError } from './db/pglite.ts';
import { startMetricsListener } from './metrics/listener.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  url: string;
  close(): Promise<void>;
  /** Where a shutdown has got to, said when one runs past its limit. */
  shutdownStage(): string;
}

/** Opens the database, builds the app and listens; prints the URL and, once, a generated admin token. */
export async function startServer(config: Config): Promise<RunningServer> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDir });
  const admin = await ensureAdminToken(db, config.adminToken);
  const { app } = await buildApp({ config, db, adminTokenHash: admin.hash });
  // Fastify runs preClose hooks in order (this one after the sync endpoint's) and onClose hooks
  // last-added first (this one before the workers stop): enough to tell which part of a slow
  // shutdown is slow.
  let stage = 'running';
  app.addHook('preClose', async () => {
    stage = 'terminals disconnected; draining HTTP requests';
  });
  app.addHook('onClose', async () => {
    stage = 'HTTP closed; stopping background workers';
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  if (admin.generated) {
    // The token alone (what ADMIN_TOKEN would hold), then the credential as it is sent: the README's
    // `ADMIN=admin.<the admin token npm start printed>` and a copy of the second line both work.
    console.log(`Admin token (shown once, stored hashed; set ADMIN_TOKEN to choose your own): ${admin.generated}`);
    console.log(`Send it as: Authorization: Bearer admin.${admin.generated}`);
  }
  const metrics = config.metricsPort === undefined ? undefined : await startMetricsListener(app, config.metricsHost, config.metricsPort);
  console.log(`API docs: ${url}/docs`);
  if (metrics) console.log(`Prometheus metrics (no credential): ${metrics.url}`);
  console.log(`Tapline sync server listening on ${url} (database: ${database}; public URL ${config.publicBaseUrl})`);
  let closing: Promise<void> | undefined;
  return {
    app,
    db,
    url,
    close() {
      // In-flight requests finish first; then the database closes cleanly.
      stage = 'disconnecting terminals';
      closing ??= Promise.all([app.close(), metrics?.close()]).then(() => {
        stage = 'closing the database';
        return db.close();
      });
      return closing;
    },
    shutdownStage: () => stage,
  };
}

/**
 * Starts from the environment and shuts down gracefully on SIGTERM and SIGINT. `beforeShutdown`
 * lets a process that runs more beside the server (npm start's terminal) close it first.
 */
export async function runFromEnvironment(options: { beforeShutdown?: () => Promise<void> } = {}): Promise<RunningServer> {
  let config: Config;
  // Every variable is checked against the schema (config.ts SETTINGS): one line per bad value,
  // secrets never shown, exit code 2 before the database is opened.
  for (const warning of configWarnings()) console.warn(`Configuration warning: ${warning}`);
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (error) {
    if (error instanceof DataDirectoryLockedError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const shutdown = (signal: string) => {
    console.log(`${signal} received: finishing in-flight requests and closing the database`);
    const forced = setTimeout(() => {
      // What was still open says what the shutdown waited for (sockets, timers, a pool's connection).
      const counts = new Map<string, number>();
      for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
      const open = [...counts].map(([kind, count]) => `${kind} x${count}`);
      console.error(`Shutdown took longer than 10 s (at: ${server.shutdownStage()}; still open: ${open.join(', ')}); exiting`);
      process.exit(1);
    }, 10_000);
    forced.unref();
    const before = options.beforeShutdown?.().catch((error: unknown) => console.error('Shutdown of the other parts failed', error)) ?? Promise.resolve();
    before.then(() => server.close()).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed', error);
        process.exit(1);
      },
    );
  };
  // Database faults are handled where they happen (a 503, a worker that tries again); a promise
  // rejection nobody handles is a bug to log and fix, not a reason to drop every terminal
  // connection and every request in flight.
  process.on('unhandledRejection', (reason) => server.app.log.error({ err: reason }, 'unhandled promise rejection'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runFromEnvironment();
}
