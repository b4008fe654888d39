import type { BridgeEventName, BridgeEvents } from '@tapline/hardware';
import { IPC, KIOSK_API_VERSION, type HardwareAnswer, type HardwareEventMessage, type IpcHardwareMethod, type KioskApi } from './api.ts';

/** The members of Electron's ipcRenderer the preload uses (a stand-in in tests). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * The page's whole view of the app: typed calls that each become one IPC request, and event
 * subscriptions. The page never sees ipcRenderer or an IPC event object (whose `sender` would
 * hand it ipcRenderer), only plain data.
 */
export function createKioskApi(ipc: IpcRendererLike): KioskApi {
  const call = <T>(method: IpcHardwareMethod, params: object) => ipc.invoke(IPC.hardware, method, params) as Promise<HardwareAnswer<T>>;
  return {
    version: KIOSK_API_VERSION,
    hardware: {
      status: () => call('hardware.status', {}),
      printerStatus: () => call('printer.status', {}),
      print: (document, options = {}) => call('printer.print', { document, ...options }),
      printReceipt: (merchant, settings, receipt, jobId) => call('printer.printReceipt', { merchant, settings, receipt, ...(jobId === undefined ? {} : { jobId }) }),
      openDrawer: (request) => call('printer.openDrawer', { reason: request.reason, jobId: request.jobId }),
      simulateTap: (tagIdOrUri) => call('nfc.simulateTap', { tagIdOrUri }),
      on<E extends BridgeEventName>(event: E, listener: (data: BridgeEvents[E]) => void) {
        const forward = (_event: unknown, message: unknown) => {
          const { event: name, data } = message as HardwareEventMessage;
          if (name === event) listener(data as BridgeEvents[E]);
        };
        ipc.on(IPC.hardwareEvent, forward);
        return () => void ipc.removeListener(IPC.hardwareEvent, forward);
      },
    },
    app: {
      info: () => ipc.invoke(IPC.appInfo) as ReturnType<KioskApi['app']['info']>,
      terminalConfig: () => ipc.invoke(IPC.terminalConfig) as ReturnType<KioskApi['app']['terminalConfig']>,
      takeTerminalToken: () => ipc.invoke(IPC.takeTerminalToken) as ReturnType<KioskApi['app']['takeTerminalToken']>,
    },
    provisioning: {
      state: () => ipc.invoke(IPC.provisioningState) as ReturnType<KioskApi['provisioning']['state']>,
      save: (syncServerUrl, options = {}) => ipc.invoke(IPC.provisioningSave, { syncServerUrl, pairingCode: options.pairingCode ?? '', force: options.force === true }) as ReturnType<KioskApi['provisioning']['save']>,
    },
  };
}
