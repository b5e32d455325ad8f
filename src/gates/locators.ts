// Ledger locators: a claim source that names the team's own stored rows (a session, one call of it, or one crossing).

/** A parsed ledger locator, or why a `ledger:` source names nothing. */
export type LedgerLocator =
  | { kind: "session"; text: string; sessionId: string }
  | { kind: "call"; text: string; sessionId: string; seq: number }
  | { kind: "crossing"; text: string; crossingId: number }
  | { kind: "malformed"; text: string };

/** The prefix that makes a source a ledger locator (any case, as URI schemes are). */
export const LEDGER_PREFIX = "ledger:";

/** The accepted forms, for messages. */
export const LEDGER_FORMS =
  "ledger:sessions/<session_id>, ledger:sessions/<session_id>/calls/<seq> or ledger:crossings/<crossing_id>";

// Ids as this service makes them: session ids are ULIDs (any [A-Za-z0-9_-] is accepted, the store decides), crossing ids
// and call sequence numbers are positive integers written without a sign or leading zero.
const SESSION = /^sessions\/([A-Za-z0-9_-]{1,64})$/;
const CALL = /^sessions\/([A-Za-z0-9_-]{1,64})\/calls\/([1-9]\d{0,8})$/;
const CROSSING = /^crossings\/([1-9]\d{0,14})$/;

/** True when a source string is meant as a ledger locator (well formed or not). */
export function isLedgerSource(text: string): boolean {
  return text.slice(0, LEDGER_PREFIX.length).toLowerCase() === LEDGER_PREFIX;
}

/** Parses a ledger locator; a `ledger:` source in no accepted form is `malformed` (it names nothing). */
export function parseLedgerLocator(text: string): LedgerLocator {
  const rest = text.slice(LEDGER_PREFIX.length);
  const call = CALL.exec(rest);
  if (call) return { kind: "call", text, sessionId: call[1]!, seq: Number(call[2]) };
  const session = SESSION.exec(rest);
  if (session) return { kind: "session", text, sessionId: session[1]! };
  const crossing = CROSSING.exec(rest);
  if (crossing) return { kind: "crossing", text, crossingId: Number(crossing[1]) };
  return { kind: "malformed", text };
}

/** The locator naming one crossing. */
export function crossingLocator(id: number): string {
  return `${LEDGER_PREFIX}crossings/${id}`;
}
