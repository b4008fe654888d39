import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrinterTarget, printerConfigFromEnv } from './config.ts';

describe('printer configuration', () => {
  it('parses every PRINTER form', () => {
    assert.deepEqual(parsePrinterTarget('virtual'), { kind: 'virtual' });
    assert.deepEqual(parsePrinterTarget('tcp:192.168.1.50'), { kind: 'tcp', host: '192.168.1.50', port: 9100 });
    assert.deepEqual(parsePrinterTarget('tcp:printer.local:9101'), { kind: 'tcp', host: 'printer.local', port: 9101 });
    assert.deepEqual(parsePrinterTarget('tcp:[::1]:9100'), { kind: 'tcp', host: '::1', port: 9100 });
    assert.deepEqual(parsePrinterTarget('serial:/dev/ttyUSB0@19200'), { kind: 'serial', path: '/dev/ttyUSB0', baudRate: 19200 });
    assert.deepEqual(parsePrinterTarget('serial:COM3'), { kind: 'serial', path: 'COM3', baudRate: 9600 });
    assert.deepEqual(parsePrinterTarget('usb:/dev/usb/lp0'), { kind: 'usb', path: '/dev/usb/lp0' });
    assert.throws(() => parsePrinterTarget('bluetooth:abc'), /PRINTER must be/);
    assert.throws(() => parsePrinterTarget('tcp:host:70000'), /out of range/);
  });

  it('defaults to the virtual printer on 80 mm paper with files under ./data', () => {
    const config = printerConfigFromEnv({}, '/srv/kiosk');
    assert.deepEqual(config, {
      target: { kind: 'virtual' },
      paperWidth: 80,
      language: 'en',
      queueDirectory: '/srv/kiosk/data/print-queue',
      previewDirectory: '/srv/kiosk/data/printer-preview',
      statusIntervalMs: 10_000,
      drawerPin: 2,
      drawerOpenWhen: 'low',
    });
    assert.throws(() => printerConfigFromEnv({ PRINTER_PAPER: '57' }), /58 or 80/);
  });

  it('reads the drawer\'s kick pin and sensor level, and refuses anything else', () => {
    const config = printerConfigFromEnv({ PRINTER_DRAWER_PIN: '5', PRINTER_DRAWER_OPEN_WHEN: 'high' }, '/srv/kiosk');
    assert.equal(config.drawerPin, 5);
    assert.equal(config.drawerOpenWhen, 'high');
    assert.equal(printerConfigFromEnv({ PRINTER_DRAWER_PIN: ' 2 ', PRINTER_DRAWER_OPEN_WHEN: '' }, '/srv/kiosk').drawerPin, 2);
    assert.equal(printerConfigFromEnv({ PRINTER_DRAWER_OPEN_WHEN: '' }, '/srv/kiosk').drawerOpenWhen, 'low');
    assert.throws(() => printerConfigFromEnv({ PRINTER_DRAWER_PIN: '3' }), /PRINTER_DRAWER_PIN must be 2 or 5, got "3"/);
    assert.throws(() => printerConfigFromEnv({ PRINTER_DRAWER_OPEN_WHEN: 'open' }), /PRINTER_DRAWER_OPEN_WHEN must be low or high, got "open"/);
  });

  it('keeps previews and the queue in DATA_DIR, as the sync server keeps its data, unless their own variables say otherwise', () => {
    const absolute = printerConfigFromEnv({ DATA_DIR: '/var/lib/tapline' }, '/srv/kiosk');
    assert.equal(absolute.previewDirectory, '/var/lib/tapline/printer-preview');
    assert.equal(absolute.queueDirectory, '/var/lib/tapline/print-queue');
    const relative = printerConfigFromEnv({ DATA_DIR: 'shop-data ' }, '/srv/kiosk');
    assert.equal(relative.previewDirectory, '/srv/kiosk/shop-data/printer-preview');
    assert.equal(printerConfigFromEnv({ DATA_DIR: '' }, '/srv/kiosk').previewDirectory, '/srv/kiosk/data/printer-preview');
    const own = printerConfigFromEnv({ DATA_DIR: '/var/lib/tapline', PRINTER_PREVIEW_DIR: '/tmp/previews', PRINTER_QUEUE_DIR: '/tmp/queue' }, '/srv/kiosk');
    assert.equal(own.previewDirectory, '/tmp/previews');
    assert.equal(own.queueDirectory, '/tmp/queue');
  });
});
