// @tapline/hardware: the package's public entry for Node (the kiosk's main process and utility
// processes, the hardware host of `npm start`, tests). The terminal imports the hardware only
// through its entries (eslint.layers.js refuses a deep path): this one; @tapline/hardware/browser
// for the kiosk page, which must not pull in serialport, the NFC driver or node:net; and
// @tapline/hardware/testing for the fakes tests drive.
export { type Clock, type TimerHandle, backoffDelayMs, systemClock } from './clock.ts';
export * from './nfc/index.ts';
export type { ParentMessage, WorkerMessage } from './nfc/worker-protocol.ts';
export * from './printer/index.ts';
export { DRAWER_REASONS } from './printer/types.ts';
// The receipt layouts' input types, the bridge client and the types crossing the bridge: the browser entry's.
export * from './browser.ts';
export { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from './printer/samples.ts';
export { PrintQueueFullError } from './printer/print-queue.ts';
export { UNKNOWN_CONDITION } from './printer/status.ts';
export { encodeDrawerPulse } from './printer/escpos.ts';
export { TcpTransport } from './printer/transports/tcp.ts';
export * from './bridge/protocol.ts';
export { BridgeClientError, HardwareBridgeClient } from './bridge/client.ts';
export { BridgeHost } from './bridge/host.ts';
export { BridgeWebSocketServer } from './bridge/ws-server.ts';
export { isLoopbackAddress } from './bridge/access.ts';
