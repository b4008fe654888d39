// The preload of the kiosk window (sandboxed, context-isolated): bundled into
// dist/preload/index.cjs by `npm run build:electron`. It exposes one small typed object,
// window.taplineKiosk (api.ts), and nothing of Electron or Node.
import { contextBridge, ipcRenderer } from 'electron';
import { KIOSK_API_GLOBAL } from './api.ts';
import { createKioskApi } from './preload.ts';

contextBridge.exposeInMainWorld(KIOSK_API_GLOBAL, createKioskApi(ipcRenderer));
