import { readFileSync } from 'node:fs';

/**
 * Kills a child process with SIGKILL and blocks this process (no event loop turn) until the
 * child is dead: a zombie its parent has not reaped yet, so Node has heard neither its exit nor
 * its IPC channel closing. What the parent does next meets a driver that has already died, the
 * race a loaded machine makes (Linux: reads /proc/<pid>/stat).
 */
export function killAndAwaitDeath(pid: number | undefined, ceilingMs = 30_000): void {
  if (pid === undefined) throw new Error('the child process has no pid');
  process.kill(pid, 'SIGKILL');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    let state: string | undefined;
    try {
      // "pid (comm) S ...": the state follows the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return; // reaped already
    }
    if (state === 'Z' || state === 'X') return;
    if (Date.now() > deadline) throw new Error(`process ${pid} still ${state} ${ceilingMs} ms after SIGKILL`);
    Atomics.wait(pause, 0, 0, 5);
  }
}
