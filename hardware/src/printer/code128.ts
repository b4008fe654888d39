/**
 * Code 128 set B bar widths, for drawing in the preview exactly the barcode the printer draws
 * from the same data (the encoder sends "{B" + data with GS k 73).
 */

// Widths (bar, space, bar, ...) in modules of symbol values 0-106, from ISO/IEC 15417.
// Every symbol is 11 modules; the stop (106) is 13 including its final bar.
const PATTERNS = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];

const START_B = 104;
const STOP = 106;

/** Symbol values of data in set B: start, characters, checksum, stop. */
export function code128BSymbols(data: string): number[] {
  const values = Array.from(data, (character) => {
    const code = character.charCodeAt(0);
    if (code < 32 || code > 126) throw new Error(`Code 128 set B cannot encode ${JSON.stringify(character)}`);
    return code - 32;
  });
  const checksum = values.reduce((sum, value, index) => sum + value * (index + 1), START_B) % 103;
  return [START_B, ...values, checksum, STOP];
}

/** Alternating bar/space widths in modules, starting with a bar. */
export function code128BWidths(data: string): number[] {
  return code128BSymbols(data).flatMap((symbol) => Array.from(PATTERNS[symbol] ?? '', Number));
}

export function code128ModuleCount(data: string): number {
  return code128BWidths(data).reduce((sum, width) => sum + width, 0);
}

/** The barcode module width the encoder will use: the widest of 1-3 (2-4 dots) that fits the paper. */
export function barcodeWidthSetting(data: string, printableDots: number): 1 | 2 | 3 {
  const modules = code128ModuleCount(data);
  for (const setting of [3, 2, 1] as const) {
    if (modules * (setting + 1) <= printableDots) return setting;
  }
  throw new Error(`Barcode ${JSON.stringify(data)} is too long for the paper`);
}
