import { statSync } from 'node:fs';

/** Where pcsc-lite's client library looks for the daemon, unless PCSCLITE_CSOCK_NAME says otherwise. */
export const DEFAULT_PCSCD_SOCKET = '/run/pcscd/pcscd.comm';

export type PcscdCheck =
  | { available: true; socketPath: string | null }
  | { available: false; socketPath: string; reason: 'socket_missing' | 'not_a_socket'; message: string };

/**
 * Whether a PC/SC service is there to talk to. nfc-pcsc's native layer busy-loops at 100% CPU
 * when no pcscd runs, so the driver is only constructed after this says yes. Linux only: on
 * Windows and macOS the PC/SC service is part of the OS and has no such socket.
 */
export function checkPcscd(options: { socketPath?: string; platform?: NodeJS.Platform } = {}): PcscdCheck {
  const platform = options.platform ?? process.platform;
  const socketPath = options.socketPath ?? process.env.PCSCLITE_CSOCK_NAME ?? DEFAULT_PCSCD_SOCKET;
  if (platform !== 'linux' && options.socketPath === undefined) return { available: true, socketPath: null };
  let isSocket: boolean;
  try {
    isSocket = statSync(socketPath).isSocket();
  } catch {
    return {
      available: false,
      socketPath,
      reason: 'socket_missing',
      message: `No PC/SC service: ${socketPath} does not exist. Install and start pcscd (apt install pcscd; systemctl enable --now pcscd.socket).`,
    };
  }
  if (!isSocket) return { available: false, socketPath, reason: 'not_a_socket', message: `${socketPath} exists but is not a socket` };
  return { available: true, socketPath };
}
