/**
 * The till's calls to its own host's display hub (terminal/src/host/display-hub.ts): the pairing
 * status, a new code for a tablet, unpairing every tablet. Same origin: the host answers only
 * the till's own page on this machine.
 */
export const PAIRING_PATH = '/display-hub/pairing';

export interface HubStatus {
  /** The host listens on the shop network (KIOSK_DISPLAY_LISTEN). */
  listening: boolean;
  /** The addresses a tablet opens (http://<address>:<port>/tablet); [] when not listening or off the network. */
  urls: string[];
  paired: number;
  following: number;
  /** The code waiting for a tablet, if any. */
  code: { code: string; expiresAt: string } | null;
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', fetchFn: typeof fetch): Promise<T> {
  const answer = await fetchFn(PAIRING_PATH, { method, cache: 'no-store' });
  const body = (await answer.json().catch(() => ({}))) as T & { error?: string };
  if (!answer.ok) throw new Error(body.error ?? `HTTP ${answer.status}`);
  return body;
}

export function hubStatus(fetchFn: typeof fetch = fetch): Promise<HubStatus> {
  return call<HubStatus>('GET', fetchFn);
}

export function createPairingCode(fetchFn: typeof fetch = fetch): Promise<HubStatus> {
  return call<HubStatus>('POST', fetchFn);
}

export function unpairTablets(fetchFn: typeof fetch = fetch): Promise<{ revoked: number }> {
  return call<{ revoked: number }>('DELETE', fetchFn);
}
