import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceFileTransport } from './device-file.ts';

describe('DeviceFileTransport (usblp /dev/usb/lpN)', () => {
  it('writes each job to the device file in full', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tapline-lp-')), 'lp0');
    writeFileSync(path, '');
    const transport = new DeviceFileTransport(path);
    await transport.send(Uint8Array.of(0x1b, 0x40, 0x41));
    await transport.send(Uint8Array.of(0x0a));
    assert.deepEqual([...readFileSync(path)], [0x1b, 0x40, 0x41, 0x0a]);
    assert.equal(await transport.query(), null);
    assert.equal(transport.description, `usb ${path}`);
  });

  it('fails with a transport error when the device is missing', async () => {
    const transport = new DeviceFileTransport('/nonexistent/usb/lp7');
    await assert.rejects(transport.send(Uint8Array.of(0x1b, 0x40)), { name: 'TransportError', code: 'write_failed' });
  });
});
