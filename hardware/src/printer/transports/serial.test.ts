import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { SerialPortMock } from 'serialport';
import { encodeReceipt } from '../escpos.ts';
import { layoutReceipt } from '../layouts.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from '../samples.ts';
import { SerialTransport } from './serial.ts';
import type { SerialPortLike } from './serial.ts';

/** What we read of @serialport/binding-mock's MockPortBinding (its types do not resolve under ESM exports). */
interface MockPortBinding {
  recording: Buffer;
  openOptions: { baudRate: number };
  emitData(data: Buffer): void;
}

// The MockBinding that SerialPortMock opens ports with. Importing @serialport/binding-mock from
// ESM would load its ESM build, a second instance with its own (empty) list of ports, because
// serialport requires the CommonJS build.
const MockBinding = SerialPortMock.binding;

function mockTransport(path: string, confirm: 'drain' | 'status' = 'drain', statusTimeoutMs = 200) {
  const ports: SerialPortMock[] = [];
  const transport = new SerialTransport({
    path,
    baudRate: 19_200,
    confirm,
    statusTimeoutMs,
    createPort: ({ path: portPath, baudRate }) => {
      const port = new SerialPortMock({ path: portPath, baudRate, autoOpen: false });
      ports.push(port);
      return port as unknown as SerialPortLike;
    },
  });
  const binding = () => ports.at(-1)?.port as MockPortBinding | undefined;
  return { transport, ports, binding };
}

describe('SerialTransport over @serialport/binding-mock', () => {
  afterEach(() => MockBinding.reset());

  it('writes exactly the encoder bytes of a receipt to the port', async () => {
    MockBinding.createPort('/dev/ttyMOCK0', { echo: false, record: true });
    const { transport, binding } = mockTransport('/dev/ttyMOCK0');
    const bytes = encodeReceipt(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(58), SAMPLE_RECEIPTS['store-sale']));
    await transport.send(bytes);
    assert.equal(transport.description, 'serial /dev/ttyMOCK0@19200');
    assert.equal(binding()?.openOptions.baudRate, 19_200);
    assert.ok(binding()?.recording.equals(Buffer.from(bytes)), 'recording equals the encoded receipt');

    // A second job goes through the same open port, appended after the first.
    const second = encodeReceipt(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(58), SAMPLE_RECEIPTS.refund));
    await transport.send(second);
    assert.ok(binding()?.recording.equals(Buffer.concat([Buffer.from(bytes), Buffer.from(second)])));
    await transport.close();
  });

  it('fails cleanly when the port does not exist, and reopens after it appears', async () => {
    const { transport, binding } = mockTransport('/dev/ttyMOCK1');
    await assert.rejects(transport.send(Uint8Array.of(0x1b, 0x40)), { code: 'open_failed' });
    MockBinding.createPort('/dev/ttyMOCK1', { echo: false, record: true });
    await transport.send(Uint8Array.of(0x1b, 0x40));
    assert.deepEqual([...(binding()?.recording ?? [])], [0x1b, 0x40]);
    await transport.close();
  });

  it('reads DLE EOT answers when the printer sends them, and reports silence as null', async () => {
    MockBinding.createPort('/dev/ttyMOCK2', { echo: false, record: true });
    const silent = mockTransport('/dev/ttyMOCK2');
    assert.equal(await silent.transport.query([Uint8Array.of(0x10, 0x04, 0x01)]), null, 'a printer without a return line');
    await silent.transport.close();
    // The printer answers once the request has reached it (not after a guessed delay); the
    // transport waits for it up to a ceiling no loaded machine reaches.
    const { transport, binding } = mockTransport('/dev/ttyMOCK2', 'drain', 60_000);
    const answered = transport.query([Uint8Array.of(0x10, 0x04, 0x02)]);
    for (const deadline = Date.now() + 60_000; !binding()?.recording.includes(Buffer.from([0x10, 0x04, 0x02])); ) {
      assert.ok(Date.now() < deadline, 'the request reached the port');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    binding()!.emitData(Buffer.from([0x16]));
    assert.deepEqual(await answered, [0x16]);
    await transport.close();
  });
});
