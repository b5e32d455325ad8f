// The error a client of a running agent-ledger service throws: one class for every caller over HTTP (the MCP proxy's
// RemoteLedger, the harness's RemoteHarnessLedger), kept here so neither reaches into the other for it.

/** A request to a remote ledger failed; the message names the route, the status and the service's own error. */
export class LedgerHttpError extends Error {
  readonly code = "ledger_unavailable";
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LedgerHttpError";
  }
}
