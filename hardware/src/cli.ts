/**
 * npm run hardware -- list | tap <tagId|uri> | print-test [kind|all] | status | drawer | bridge
 *
 * Looks at and exercises the hardware from a shell: which readers and ports are there, what a
 * tap yields, what a receipt looks like, and whether the printer answers.
 */
import { readdirSync } from 'node:fs';
import { SerialPort } from 'serialport';
import { BridgeWebSocketServer } from './bridge/ws-server.ts';
import { createNfcReader, nfcConfigFromEnv } from './nfc/index.ts';
import { PcscNfcReader } from './nfc/pcsc-reader.ts';
import { checkPcscd } from './nfc/pcscd.ts';
import { SimulatedNfcReader } from './nfc/simulated-reader.ts';
import type { NfcReaderStatus } from './nfc/types.ts';
import { createPrinter, printerConfigFromEnv } from './printer/index.ts';
import type { PrinterConfig } from './printer/config.ts';
import { layoutReceipt } from './printer/layouts.ts';
import type { ReceiptInput } from './printer/layouts.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS } from './printer/samples.ts';
import type { PrinterStatus } from './printer/types.ts';
import { VirtualPrinter } from './printer/virtual-printer.ts';

const USAGE = `Usage: npm run hardware -- <command>

  list                      NFC readers (PC/SC), serial ports and USB printer devices
  tap <tagId|uri>           simulate a tap on the simulated reader and print the event
  print-test [kind|all]     print a test receipt on PRINTER (default: virtual, previews in
                            $DATA_DIR/printer-preview/, ./data by default); kinds: ${Object.keys(SAMPLE_RECEIPTS).join(', ')}
  status                    NFC reader and printer status
  drawer                    kick the cash drawer open on PRINTER and read its sensor (to check
                            PRINTER_DRAWER_PIN and PRINTER_DRAWER_OPEN_WHEN when installing)
  bridge                    run the hardware bridge on a loopback WebSocket until Ctrl-C

Environment: PRINTER=virtual | tcp:HOST[:9100] | serial:/dev/ttyUSB0[@9600] | usb:/dev/usb/lp0,
PRINTER_PAPER=58|80, PRINTER_LANGUAGE, PRINTER_QUEUE_DIR, PRINTER_PREVIEW_DIR, DATA_DIR,
PRINTER_DRAWER_PIN=2|5, PRINTER_DRAWER_OPEN_WHEN=low|high,
NFC_READER=auto|pcsc|simulated, NFC_DEBOUNCE_MS, PUBLIC_BASE_URL, HARDWARE_BRIDGE_PORT.`;

function describePrinterTarget(config: PrinterConfig): string {
  const { target } = config;
  switch (target.kind) {
    case 'virtual':
      return `virtual (previews in ${config.previewDirectory})`;
    case 'tcp':
      return `network printer ${target.host}:${target.port}`;
    case 'serial':
      return `serial printer ${target.path} at ${target.baudRate} baud`;
    case 'usb':
      return `USB printer ${target.path}`;
  }
}

/** Starts the PC/SC driver long enough to see which readers are plugged in. */
async function pcscReaders(waitMs = 1500): Promise<NfcReaderStatus> {
  const reader = new PcscNfcReader({ maxConsecutiveRestarts: 0 });
  reader.on('error', () => undefined);
  await reader.start();
  const deadline = Date.now() + 5000;
  while (reader.status().state === 'starting' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (reader.status().state === 'ready') await new Promise((resolve) => setTimeout(resolve, waitMs));
  const status = reader.status();
  await reader.stop();
  return status;
}

async function listCommand(): Promise<number> {
  console.log('NFC readers (PC/SC)');
  const pcscd = checkPcscd();
  if (!pcscd.available) {
    console.log(`  none: ${pcscd.message}`);
  } else {
    const status = await pcscReaders();
    if (status.state !== 'ready') console.log(`  driver ${status.state}: ${status.detail ?? 'no detail'}`);
    else if (status.readers.length === 0) console.log('  none attached: plug in an ACR122U (or compatible) reader');
    else for (const name of status.readers) console.log(`  ${name}`);
  }

  console.log('Serial ports');
  try {
    const ports = await SerialPort.list();
    if (ports.length === 0) console.log('  none found');
    for (const port of ports) console.log(`  ${port.path}${port.manufacturer ? `  ${port.manufacturer}` : ''}${port.vendorId ? `  (${port.vendorId}:${port.productId ?? '?'})` : ''}`);
  } catch (error) {
    console.log(`  cannot list serial ports here (${(error as Error).message}); give the path in PRINTER=serial:/dev/ttyUSB0@9600`);
  }

  console.log('USB printers (usblp)');
  let usb: string[] = [];
  try {
    usb = readdirSync('/dev/usb').filter((name) => name.startsWith('lp'));
  } catch {
    usb = [];
  }
  if (usb.length === 0) console.log('  none found (/dev/usb/lp*)');
  for (const name of usb) console.log(`  /dev/usb/${name}  -> PRINTER=usb:/dev/usb/${name}`);
  return 0;
}

async function tapCommand(value: string | undefined): Promise<number> {
  if (value === undefined) {
    console.error('tap needs a tag id (TG + 8 hex) or a URI');
    return 2;
  }
  const config = nfcConfigFromEnv();
  const reader = new SimulatedNfcReader({ baseUrl: config.baseUrl, debounceWindowMs: config.debounceWindowMs });
  reader.on('tag', (event) => console.log(JSON.stringify({ event: 'tag', ...event }, null, 2)));
  reader.on('unsupported', (event) => console.log(JSON.stringify({ event: 'unsupported', ...event }, null, 2)));
  await reader.start();
  try {
    const event = reader.tap(value);
    if (event !== null && 'tagId' in event && event.tagId === undefined) console.log(`note: ${value} is not a tap URL ({base_url}/tap/TGxxxxxxxx); the terminal cannot pay with it`);
  } catch (error) {
    console.error(`cannot simulate that tag: ${(error as Error).message}`);
    return 1;
  }
  await reader.stop();
  return 0;
}

async function printTestCommand(kind: string | undefined): Promise<number> {
  const config = printerConfigFromEnv();
  const kinds = kind === undefined ? ['store-sale'] : kind === 'all' ? Object.keys(SAMPLE_RECEIPTS) : [kind];
  for (const name of kinds) {
    if (!(name in SAMPLE_RECEIPTS)) {
      console.error(`unknown receipt kind ${JSON.stringify(name)}; choose one of ${Object.keys(SAMPLE_RECEIPTS).join(', ')} or all`);
      return 2;
    }
  }
  console.log(`Printing to ${describePrinterTarget(config)} on ${config.paperWidth} mm paper`);
  const printer = createPrinter({ ...config, statusIntervalMs: 0 });
  let failures = 0;
  try {
    for (const name of kinds) {
      const input = SAMPLE_RECEIPTS[name as ReceiptInput['kind']];
      const document = layoutReceipt(SAMPLE_MERCHANT, { paperWidth: config.paperWidth, language: config.language, timeZone: 'Africa/Lagos', terminalName: 'print-test' }, input);
      const result = await printer.print(document, { label: `print-test-${name}-${config.paperWidth}mm`, jobId: `print-test-${name}-${Date.now()}` });
      if (printer instanceof VirtualPrinter) {
        const job = printer.jobs.at(-1);
        console.log(`  ${name}: ${job?.bytes.length ?? 0} bytes`);
        console.log(`    ${job?.files.svg}`);
        console.log(job?.files.png !== undefined ? `    ${job.files.png}` : `    (no PNG: ${job?.files.pngUnavailable})`);
      } else if (result.state === 'printed') {
        console.log(`  ${name}: printed`);
      } else {
        failures += 1;
        console.log(`  ${name}: NOT printed (${result.error ?? 'printer offline'})`);
        console.log(`    the job is kept in ${config.queueDirectory} and prints when the printer is back and the terminal (or this command) runs again`);
      }
    }
  } finally {
    await printer.close();
  }
  return failures === 0 ? 0 : 1;
}

function printerStatusLines(status: PrinterStatus): string[] {
  const flag = (value: boolean | null, yes: string, no: string) => (value === null ? 'unknown' : value ? yes : no);
  return [
    `  printer: ${status.printer}`,
    `  state: ${status.state}, jobs waiting in the print queue: ${status.queuedJobs}`,
    `  online: ${flag(status.online, 'yes', 'no')}, paper: ${status.paperOut === true ? 'OUT' : status.paperNearEnd === true ? 'low' : flag(status.paperOut, 'out', 'ok')}, cover: ${flag(status.coverOpen, 'OPEN', 'closed')}, cash drawer: ${status.drawer ?? 'not reported'}`,
    ...(status.problem === undefined ? [] : [`  problem: ${status.problem}`]),
    ...(status.checkedAt === undefined && status.printer !== 'virtual' ? ['  (the printer did not answer a status request: it is off, unreachable, or has no status support)'] : []),
  ];
}

async function statusCommand(): Promise<number> {
  const nfcConfig = nfcConfigFromEnv();
  console.log('NFC');
  const pcscd = checkPcscd();
  if (nfcConfig.mode === 'simulated' || (nfcConfig.mode === 'auto' && !pcscd.available)) {
    console.log(`  simulated reader (tags expand to ${nfcConfig.baseUrl}/tap/<tagId>)`);
    if (!pcscd.available) console.log(`  no real reader: ${pcscd.message}`);
  } else {
    const status = await pcscReaders();
    console.log(`  PC/SC driver: ${status.state}${status.detail ? ` (${status.detail})` : ''}`);
    console.log(status.readers.length === 0 ? '  no reader attached' : `  readers: ${status.readers.join(', ')}`);
  }
  console.log(`  debounce window: ${nfcConfig.debounceWindowMs} ms`);

  const config = printerConfigFromEnv();
  console.log(`Printer: ${describePrinterTarget(config)}, ${config.paperWidth} mm`);
  // Only ask: jobs waiting in the queue are left for the terminal (or print-test) to print.
  const printer = createPrinter({ ...config, statusIntervalMs: 0 }, { resumeQueue: false });
  try {
    for (const line of printerStatusLines(await printer.refreshStatus())) console.log(line);
  } finally {
    await printer.close();
  }
  return 0;
}

async function drawerCommand(): Promise<number> {
  const config = printerConfigFromEnv();
  console.log(`Cash drawer on ${describePrinterTarget(config)}: kick on pin ${config.drawerPin}, open when pin 3 is ${config.drawerOpenWhen}`);
  const printer = createPrinter({ ...config, statusIntervalMs: 0 }, { resumeQueue: false });
  // The sensor is read a moment after the kick, on a timer that alone would not keep this process running.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const result = await printer.openDrawer({ reason: 'no_sale', jobId: `cli-drawer-${Date.now()}` });
    console.log(`  kicked; the drawer reads ${result.drawer ?? 'nothing (this printer does not report it)'}`);
    if (result.drawer === 'closed') console.log('  if it did open: the sensor works the other way round, set PRINTER_DRAWER_OPEN_WHEN to the other level; if it did not: try PRINTER_DRAWER_PIN=5');
    return 0;
  } catch (error) {
    console.log(`  ${(error as Error).message}`);
    return 1;
  } finally {
    clearInterval(keepAlive);
    await printer.close();
  }
}

async function bridgeCommand(): Promise<number> {
  const nfc = createNfcReader(nfcConfigFromEnv());
  const printer = createPrinter(printerConfigFromEnv());
  nfc.on('error', (error) => console.warn(`[nfc] ${error.message}`));
  await nfc.start();
  const port = Number(process.env.HARDWARE_BRIDGE_PORT ?? 0);
  const server = await BridgeWebSocketServer.start({ nfc, printer, port, ...(nfc instanceof SimulatedNfcReader ? { simulator: nfc } : {}) });
  console.log(`Hardware bridge on ${server.url}`);
  console.log(`Secret for this run: ${server.secret}`);
  console.log(`NFC: ${nfc.driver}; printer: ${printer.name}. Ctrl-C to stop.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await nfc.stop();
  await printer.close();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, argument] = argv;
  switch (command) {
    case 'list':
      return listCommand();
    case 'tap':
      return tapCommand(argument);
    case 'print-test':
      return printTestCommand(argument);
    case 'status':
      return statusCommand();
    case 'drawer':
      return drawerCommand();
    case 'bridge':
      return bridgeCommand();
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
