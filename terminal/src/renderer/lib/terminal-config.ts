import type { PaperWidth } from '@tapline/hardware/browser';
import { kioskApi } from './hardware-ipc.ts';

/** What the host hands the page at /terminal-config.json: how to reach the hardware and print. */
export interface TerminalConfig {
  /** ws://127.0.0.1:<port>/ of the hardware bridge; absent in Electron, where IPC carries it. */
  bridgeUrl?: string;
  /** This start's bridge secret (with bridgeUrl). */
  bridgeSecret?: string;
  receipt: { paperWidth: PaperWidth; language: string; timeZone: string };
}

/** From the Electron app over IPC (its host serves no /terminal-config.json), else from the host. */
export async function loadTerminalConfig(): Promise<TerminalConfig> {
  const api = kioskApi();
  if (api !== null) return api.app.terminalConfig();
  // The host answers with cache-control: no-store: the secret is new at every start.
  const response = await fetch('/terminal-config.json');
  if (!response.ok) throw new Error(`terminal configuration: HTTP ${response.status}`);
  return (await response.json()) as TerminalConfig;
}
