/** TERMINAL_PORT: the port the terminal page is served on (default 5174; 0 picks a free one). */
export const DEFAULT_TERMINAL_PORT = 5174;

export function terminalPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.TERMINAL_PORT?.trim();
  if (text === undefined || text === '') return DEFAULT_TERMINAL_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`TERMINAL_PORT must be an integer from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}
