/**
 * How the API tells connected terminals that what their hello said has changed (a merchant set
 * new offline limits): the sync endpoint listens and greets that terminal's connections again.
 * Routes are registered before the endpoint is attached, so they hold this, not the endpoint.
 * Connections to other server instances hear of it at their next reconnect.
 */
export class SyncNotifier {
  private listener: ((terminalId: string) => void) | undefined;

  listen(listener: (terminalId: string) => void): void {
    this.listener = listener;
  }

  terminalChanged(terminalId: string): void {
    this.listener?.(terminalId);
  }
}
