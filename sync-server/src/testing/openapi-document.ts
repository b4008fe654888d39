import { randomBytes } from 'node:crypto';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { sha256Hex } from '../auth/secrets.ts';
import { openDatabase } from '../db/open.ts';

/**
 * The document a server with the default configuration publishes at /docs/json, built without
 * listening, on an in-memory database: what `npm run openapi` writes to openapi.json and what the
 * drift test compares it with. The environment is not read, so every machine builds the same one.
 */
export async function publishedDocument(): Promise<Record<string, unknown>> {
  const db = await openDatabase({});
  try {
    const { app } = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      db,
      adminTokenHash: sha256Hex(randomBytes(32).toString('hex')),
      secretsKey: randomBytes(32),
      logger: false,
      backgroundJobs: false,
    });
    try {
      await app.ready();
      return structuredClone(app.swagger()) as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

/** The committed form: two-space JSON with a final newline. */
export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
