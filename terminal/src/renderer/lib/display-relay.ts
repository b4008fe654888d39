/**
 * The till's side of a tablet's customer display: each display state the till publishes is also
 * posted to the kiosk host (/display-hub/state, terminal/src/host/display-hub.ts), which relays it
 * to paired tablets. One post at a time and only the newest counts: a burst of changes (items
 * scanned quickly) sends the last state, never an older one after a newer. A failed post (the
 * host restarting) is tried again after `retryMs`, unless a newer state has replaced it.
 */
export const DISPLAY_HUB_STATE_PATH = '/display-hub/state';

export type PostState = (text: string) => Promise<boolean>;

/** Posts to this page's own host; false when the host did not take it. */
export const postToHost: PostState = async (text) => {
  try {
    const answer = await fetch(DISPLAY_HUB_STATE_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return answer.ok;
  } catch {
    return false;
  }
};

export interface Relay {
  send(text: string): void;
  /** Resolves once nothing is waiting or in flight (tests). */
  idle(): Promise<void>;
  stop(): void;
}

export function hostRelay(post: PostState = postToHost, retryMs = 2_000): Relay {
  let waiting: string | null = null;
  let flight: Promise<void> | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const idlers: (() => void)[] = [];

  const settle = () => {
    if (waiting === null && flight === null && retry === null) idlers.splice(0).forEach((resolve) => resolve());
  };
  const pump = () => {
    if (stopped || flight !== null || waiting === null) return settle();
    const text = waiting;
    waiting = null;
    flight = post(text).then((ok) => {
      flight = null;
      // Not taken and nothing newer: try the same again a little later.
      if (!ok && waiting === null && !stopped) {
        waiting = text;
        retry = setTimeout(() => {
          retry = null;
          pump();
        }, retryMs);
        return;
      }
      pump();
    });
  };
  return {
    send(text) {
      if (stopped) return;
      waiting = text;
      if (retry !== null) {
        clearTimeout(retry);
        retry = null;
      }
      pump();
    },
    idle() {
      return new Promise((resolve) => {
        idlers.push(resolve);
        settle();
      });
    },
    stop() {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
      waiting = null;
      settle();
    },
  };
}
