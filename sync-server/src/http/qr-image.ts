import QRCode from 'qrcode';

/**
 * A text as a QR code PNG, as a data URL (`data:image/png;base64,...`): the form an answer carries
 * a code to be scanned in (a gift card's code, a terminal's pairing code). It sits here, below the
 * modules, so that one module does not import another for an image.
 */
export function qrPng(text: string): Promise<string> {
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
}
