/** TERMINAL_PORT: the port the terminal page is served on (default 5174; 0 picks a free one). */
export const DEFAULT_TERMINAL_PORT = 5174;

export function terminalPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.TERMINAL_PORT?.trim();
  if (text === undefined || text === '') return DEFAULT_TERMINAL_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`TERMINAL_PORT must be an integer from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

/**
 * KIOSK_DISPLAY_LISTEN: where a tablet on the shop's LAN reaches the customer display
 * (display-hub.ts), as `host:port` (`0.0.0.0:5175` for every interface, `[::]:5175`) or a port
 * alone (every IPv4 interface). Unset, empty or `off`: null, no LAN listener (the kiosk exposes
 * nothing to the network unless asked).
 */
export interface DisplayListen {
  host: string;
  port: number;
}

export function displayListenFromEnv(env: NodeJS.ProcessEnv = process.env): DisplayListen | null {
  const text = env.KIOSK_DISPLAY_LISTEN?.trim() ?? '';
  if (text === '' || ['off', 'no', 'false', '0', 'none'].includes(text.toLowerCase())) return null;
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(text);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`KIOSK_DISPLAY_LISTEN must be host:port (0.0.0.0:5175), a port, or off; got ${JSON.stringify(text)}`);
  }
  return { host: (match[1] ?? '0.0.0.0').replace(/^\[|\]$/g, ''), port };
}
