/**
 * A barcode scanner in keyboard mode types its code as fast keystrokes and ends with Enter.
 * People type far slower, so a burst of at least MIN_CODE_LENGTH characters, each within
 * MAX_GAP_MS of the one before, ended by Enter, is a scan. The keys of a burst still reach the
 * page as they come (a scanner cannot be told from a person at the first key): `onBurstStart`
 * lets the screen remember its state when a burst may begin, and a scan restores it, so the
 * digits a scanner typed into the amount (or a search field) are taken back. The Enter of a scan
 * never reaches the page (it would press Charge).
 */
export const SCAN_GAP_MS_MAX = 40;
export const SCAN_CODE_LENGTH_MIN = 4;

export interface ScanDetector {
  /** Feeds one keydown; answers the code when this key ended a scan. */
  key(key: string, at: number): string | null;
}

export function scanDetector(onBurstStart: () => void = () => {}): ScanDetector {
  let code = '';
  let last = -Infinity;
  return {
    key(key, at) {
      const fast = at - last <= SCAN_GAP_MS_MAX;
      last = at;
      if (key === 'Enter') {
        const scanned = fast && code.length >= SCAN_CODE_LENGTH_MIN ? code : null;
        code = '';
        return scanned;
      }
      if (key.length !== 1) {
        code = '';
        return null;
      }
      if (!fast) {
        code = '';
        onBurstStart();
      }
      code += key;
      return null;
    },
  };
}

/**
 * Listens on the whole page (capture phase, before the amount keys and any field) and calls
 * `onScan` with each scanned code. Returns the function that stops listening.
 */
export function listenForScans(onScan: (code: string) => void, onBurstStart: () => void): () => void {
  const detector = scanDetector(onBurstStart);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const code = detector.key(event.key, event.timeStamp);
    if (code === null) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    onScan(code);
  };
  window.addEventListener('keydown', onKeyDown, { capture: true });
  return () => window.removeEventListener('keydown', onKeyDown, { capture: true });
}
