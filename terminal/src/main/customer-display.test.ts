// The customer display's window (customer-display.ts) against the stand-in for Electron: which
// screen it goes on (never the till's own), the window it is (frameless, full screen, never
// focused, no preload), and screens plugged in and out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CustomerDisplayMode, chooseCustomerDisplay, customerDisplayMode, startCustomerDisplay } from './customer-display.ts';
import type { KioskWindow } from './electron-like.ts';
import { PRIMARY_DISPLAY, fakeElectron } from './testing/fake-electron.ts';

const SIDE = { id: 42, bounds: { x: 1024, y: 0, width: 800, height: 1280 } };
const THIRD = { id: 43, bounds: { x: 1824, y: 0, width: 1024, height: 768 } };
const URL_ = 'http://127.0.0.1:5174/display';

function start(fake: ReturnType<typeof fakeElectron>, mode: CustomerDisplayMode) {
  const locked: KioskWindow[] = [];
  const logs: string[] = [];
  const display = startCustomerDisplay(fake.electron, { url: URL_, mode, kiosk: true, lockWindow: (window) => void locked.push(window), log: (line) => logs.push(line) });
  return { display, locked, logs };
}

describe('the customer display window', () => {
  it('reads KIOSK_CUSTOMER_DISPLAY: auto by default, off, a screen id; anything else is not a mode', () => {
    assert.deepEqual(customerDisplayMode(undefined), { kind: 'auto' });
    assert.deepEqual(customerDisplayMode(''), { kind: 'auto' });
    assert.deepEqual(customerDisplayMode(' AUTO '), { kind: 'auto' });
    for (const off of ['off', 'OFF', 'none', 'false', '0']) assert.deepEqual(customerDisplayMode(off), { kind: 'off' }, off);
    assert.deepEqual(customerDisplayMode('2528732444'), { kind: 'display', id: 2528732444 });
    assert.equal(customerDisplayMode('left'), null);
    assert.equal(customerDisplayMode('-3'), null);
  });

  it('chooses a screen that is not the primary: the first other (auto), the one named, or none', () => {
    const all = [PRIMARY_DISPLAY, SIDE, THIRD];
    assert.equal(chooseCustomerDisplay(all, PRIMARY_DISPLAY, { kind: 'auto' })?.id, 42);
    assert.equal(chooseCustomerDisplay(all, PRIMARY_DISPLAY, { kind: 'display', id: 43 })?.id, 43);
    assert.equal(chooseCustomerDisplay(all, PRIMARY_DISPLAY, { kind: 'display', id: 1 }), null, 'never over the till');
    assert.equal(chooseCustomerDisplay(all, PRIMARY_DISPLAY, { kind: 'display', id: 99 }), null);
    assert.equal(chooseCustomerDisplay(all, PRIMARY_DISPLAY, { kind: 'off' }), null);
    assert.equal(chooseCustomerDisplay([PRIMARY_DISPLAY], PRIMARY_DISPLAY, { kind: 'auto' }), null);
  });

  it('opens a frameless, full-screen, never-focused window with no preload on the second screen, locked down, and shows it once loaded', async () => {
    const fake = fakeElectron({ displays: [PRIMARY_DISPLAY, SIDE] });
    const { display, locked, logs } = start(fake, { kind: 'auto' });
    assert.equal(fake.windows.length, 1);
    const window = fake.windows[0]!;
    assert.deepEqual(locked, [window]);
    assert.deepEqual(window.loaded, [URL_]);
    const { webPreferences, ...options } = window.options;
    assert.deepEqual(options, { kiosk: false, fullscreen: true, frame: false, focusable: false, x: 1024, y: 0, width: 800, height: 1280, autoHideMenuBar: true, backgroundColor: '#f4f6fb', title: 'Tapline customer display', show: false });
    assert.equal(webPreferences.preload, undefined);
    assert.deepEqual([webPreferences.contextIsolation, webPreferences.nodeIntegration, webPreferences.sandbox, webPreferences.devTools], [true, false, true, false]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(window.shown, 1);
    assert.equal(display.current()?.displayId, 42);
    assert.ok(logs.some((line) => line === 'kiosk: customer display on screen 42 (800x1280 at 1024,0)'), logs.join('\n'));
    // Its page crashed: loaded again.
    window.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 1 });
    assert.equal(window.webContents.reloads, 1);
    display.stop();
    assert.equal(window.destroyed, true);
    assert.equal(display.current(), null);
  });

  it('closes when its screen is unplugged, opens on the next one plugged in, and stays closed once stopped', () => {
    const fake = fakeElectron();
    const { display } = start(fake, { kind: 'auto' });
    assert.equal(fake.windows.length, 0, 'one screen: no customer display');
    fake.screens.add(SIDE);
    assert.equal(fake.windows.length, 1);
    fake.screens.add(THIRD);
    assert.equal(fake.windows.length, 1, 'a third screen changes nothing');
    fake.screens.remove(SIDE.id);
    assert.equal(fake.windows[0]!.destroyed, true);
    assert.equal(fake.windows.length, 2, 'moved to the screen left');
    assert.equal(display.current()?.displayId, 43);
    fake.screens.remove(THIRD.id);
    assert.equal(display.current(), null);
    display.stop();
    fake.screens.add(SIDE);
    assert.equal(fake.windows.length, 2, 'stopped: nothing opens');
  });

  it('goes only on the screen named, and nowhere when off', () => {
    const named = fakeElectron({ displays: [PRIMARY_DISPLAY, SIDE] });
    const { display } = start(named, { kind: 'display', id: 43 });
    assert.equal(named.windows.length, 0);
    named.screens.add(THIRD);
    assert.equal(display.current()?.displayId, 43);
    assert.equal(named.windows[0]!.options.x, 1824);
    const off = fakeElectron({ displays: [PRIMARY_DISPLAY, SIDE] });
    start(off, { kind: 'off' });
    off.screens.add(THIRD);
    assert.equal(off.windows.length, 0);
  });
});
