import QRCode from 'qrcode';

export interface QrMatrix {
  size: number;
  isDark(row: number, column: number): boolean;
}

/**
 * The QR symbol for the preview, with the settings the printer gets (model 2, error correction
 * M, smallest version that fits). The printer may pick another mask pattern, so individual
 * modules can differ while size, version and content are the same.
 */
export function qrMatrix(data: string): QrMatrix {
  const symbol = QRCode.create(data, { errorCorrectionLevel: 'M' });
  const { size } = symbol.modules;
  return { size, isDark: (row, column) => symbol.modules.get(row, column) === 1 };
}
