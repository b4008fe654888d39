import type { ProductDoc, TillStaffDoc } from '@tapline/shared/sync-protocol';

/**
 * How the API tells connected terminals that what their hello said has changed (a merchant set
 * new offline limits): the sync endpoint listens and greets that terminal's connections again.
 * Routes are registered before the endpoint is attached, so they hold this, not the endpoint.
 * On PostgreSQL the endpoint's emit goes through socket.io's PostgreSQL adapter, so a terminal
 * connected to another server instance hears it too (test/chaos, "chaos behind HAProxy").
 */
export class SyncNotifier {
  private listener: ((terminalId: string) => void) | undefined;
  private productListener: ((merchantId: string, mode: 'test' | 'live', documents: ProductDoc[]) => void) | undefined;

  /** Products of a merchant changed (docs/catalogue.md): streamed to its connected terminals of that mode. */
  listenProducts(listener: (merchantId: string, mode: 'test' | 'live', documents: ProductDoc[]) => void): void {
    this.productListener = listener;
  }

  productsChanged(merchantId: string, mode: 'test' | 'live', documents: ProductDoc[]): void {
    if (documents.length > 0) this.productListener?.(merchantId, mode, documents);
  }

  private staffListener: ((merchantId: string, documents: TillStaffDoc[]) => void) | undefined;

  /** The merchant's till staff changed (docs/till.md): streamed to its connected terminals of both modes. */
  listenStaff(listener: (merchantId: string, documents: TillStaffDoc[]) => void): void {
    this.staffListener = listener;
  }

  staffChanged(merchantId: string, documents: TillStaffDoc[]): void {
    if (documents.length > 0) this.staffListener?.(merchantId, documents);
  }

  listen(listener: (terminalId: string) => void): void {
    this.listener = listener;
  }

  terminalChanged(terminalId: string): void {
    this.listener?.(terminalId);
  }

  private connectedAnswer: ((terminalIds: readonly string[]) => Promise<ReadonlySet<string>>) | undefined;

  /** The sync endpoint answers which terminals have a live connection (to any server instance). */
  answerConnected(answer: (terminalIds: readonly string[]) => Promise<ReadonlySet<string>>): void {
    this.connectedAnswer = answer;
  }

  /** Which of these terminals have a live sync connection now; none without a sync endpoint. */
  async connectedTerminals(terminalIds: readonly string[]): Promise<ReadonlySet<string>> {
    if (terminalIds.length === 0 || !this.connectedAnswer) return new Set();
    return this.connectedAnswer(terminalIds);
  }
}
