// @tapline/hardware/browser: what the kiosk page (terminal/src/renderer, bundled by Vite for a
// browser) may take from the hardware: the bridge client and the types of what crosses the
// bridge. Nothing here imports a Node module; @tapline/hardware (index.ts) is the Node side.
export { BridgeClientError, HardwareBridgeClient } from './bridge/client.ts';
export type { BridgeErrorCode, BridgeEventName, BridgeEvents, BridgeResponse, HardwareStatus, HostMessage } from './bridge/protocol.ts';
export type { DrawerReason, DrawerRequest, DrawerResult, PrintResult, PrinterStatus } from './printer/types.ts';
export type { PaperWidth, ReceiptDocument } from './printer/document.ts';
export type {
  EndOfDayReport,
  GiftCardSaleReceipt,
  MerchantHeader,
  OfflinePaymentReceipt,
  PosPaymentReceipt,
  ReceiptInput,
  ReceiptSettings,
  RefundReceipt,
  ShiftReport,
  TillSaleReceipt,
} from './printer/layouts.ts';
export type { NfcReaderStatus, TagEvent, UnsupportedTagEvent } from './nfc/types.ts';
