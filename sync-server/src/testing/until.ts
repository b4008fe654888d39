import assert from 'node:assert/strict';

/**
 * Waits for `probe` to answer something (not undefined), asking every `everyMs`, and fails the
 * test naming `what` after `ceilingMs`: tests wait on conditions, never for fixed times, and a
 * generous ceiling keeps them from judging speed (CI runs loaded).
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ceilingMs = 60_000, everyMs = 50): Promise<T> {
  for (const deadline = Date.now() + ceilingMs; ; ) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `waited for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
