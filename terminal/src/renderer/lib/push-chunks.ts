/**
 * A push split into messages the server accepts. RxDB hands the push handler up to
 * SYNC_PUSH_BATCH_SIZE_MAX documents, and an ordinary hundred fit one socket.io message easily; a
 * hundred offline sales with long carts do not (one with CART_LINES_MAX lines of the longest names
 * is about 160 kB), and the server refuses a message over SYNC_MESSAGE_BYTES_MAX before reading it,
 * so such a push would be retried forever. The rows go out in order, in as few messages as fit
 * `bytesMax` each (their JSON in UTF-8 plus the envelope); a row too big even alone goes alone (the
 * server answers it as it can: no row is ever held back here).
 */
const encoder = new TextEncoder();

/** What a push message adds around its rows: the collection's name, the keys, the brackets. */
export const PUSH_ENVELOPE_BYTES = 1_000;

export function pushChunks<Row>(rows: readonly Row[], bytesMax: number): Row[][] {
  const chunks: Row[][] = [];
  let current: Row[] = [];
  let bytes = PUSH_ENVELOPE_BYTES;
  for (const row of rows) {
    // A comma between rows: one byte each.
    const size = encoder.encode(JSON.stringify(row)).length + 1;
    if (current.length > 0 && bytes + size > bytesMax) {
      chunks.push(current);
      current = [];
      bytes = PUSH_ENVELOPE_BYTES;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
