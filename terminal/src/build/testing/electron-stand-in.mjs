// What `import * as electron from 'electron'` gives the built main bundle when the smoke test
// starts it in Node: the members of the stand-in run-bundle.ts made (main/testing/fake-electron.ts).
const fake = globalThis.__taplineFakeElectron;
if (fake === undefined) throw new Error('run-bundle.ts must set up the stand-in before the bundle loads');
const { electron } = fake;

export const { app, BrowserWindow, Menu, session, ipcMain, powerMonitor, powerSaveBlocker, crashReporter, utilityProcess } = electron;
export default electron;
