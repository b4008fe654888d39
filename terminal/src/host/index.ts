import { DEFAULT_DIST_DIR, ensureRendererBuilt } from './build.ts';
import { type HostServerOptions, type TerminalHost, startHostServer } from './server.ts';

export { buildRenderer, ensureRendererBuilt, isRendererBuildFresh, DEFAULT_DIST_DIR } from './build.ts';
export { terminalPortFromEnv, DEFAULT_TERMINAL_PORT, displayListenFromEnv, type DisplayListen } from './config.ts';
export { DisplayHub } from './display-hub.ts';
export { startHostServer } from './server.ts';
export type { HostServerOptions, TerminalHost } from './server.ts';

export interface TerminalHostOptions extends Omit<HostServerOptions, 'staticDir'> {
  /** A prebuilt renderer to serve as is (tests build once into a temporary folder). */
  staticDir?: string;
  /** Where to build when no staticDir is given (default terminal/dist/renderer); rebuilt only when stale. */
  distDir?: string;
}

/**
 * The terminal as `npm start` and the tests run it: the renderer built with Vite when its build
 * is missing or stale, then served by the host (server.ts). The packaged Electron app starts the
 * host server directly on the renderer it ships, without Vite.
 */
export async function startTerminalHost(options: TerminalHostOptions): Promise<TerminalHost> {
  const { distDir, staticDir, ...rest } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = staticDir ?? distDir ?? DEFAULT_DIST_DIR;
  if (staticDir === undefined) {
    const started = Date.now();
    if (await ensureRendererBuilt(dir)) log(`Terminal renderer built into ${dir} in ${Date.now() - started} ms`);
  }
  return startHostServer({ ...rest, staticDir: dir });
}
