// The session side of the SQLite store: sessions, guarded calls (group-committed), crossings, audits, manifests, packs.
import type { UndeclaredTools } from "../../guard/verdict.js";
import type { Clock } from "../../clock.js";
import { auditAnswer } from "../../provenance/audit.js";
import { loadManifest } from "./manifests.js";
import type * as port from "../port.js";
import { findCrossings, listSessions, sessionTeam } from "./queries.js";
import type { SqliteParts } from "./parts.js";
import { LARGE_COUNT } from "../../limits.js";

/** Sessions over today's SessionStore and queries. */
export function sqliteSessions({ db, ledger }: SqliteParts, clock: Clock): port.SessionsRepo {
  return {
    create: async (teamId, input) => ledger.sessions.create(teamId, input, clock.now()),
    get: async (teamId, id) => ledger.sessions.get(teamId, id),
    list: async (teamId, filter) => listSessions(db.sqlite, teamId, filter),
    teamOf: async (sessionId) => sessionTeam(db.sqlite, sessionId),
    report: async (teamId, sessionId) => ledger.report(teamId, sessionId),
  };
}

/** Whether a call's arguments or result make a write large enough to commit alone (one crossing per key). */
const isLarge = (v: unknown): boolean =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length >= LARGE_COUNT;

/** The guarded-call path: each call in its own savepoint of a group commit (src/store/batch.ts). */
export function sqliteCalls(
  { ledger }: SqliteParts,
  clock: Clock,
  undeclared: UndeclaredTools = "accept",
): port.CallsRepo {
  return {
    // A caller told the verdict early (`decided`) is waiting to send the call on: its call runs now when it can.
    call: (teamId, sessionId, tool, args, options) => {
      const job = () => ledger.call(teamId, sessionId, tool, args, clock, undefined, undeclared, options);
      const alone = { alone: isLarge(args) };
      return options?.decided ? ledger.batcher.runNow(job, alone) : ledger.batcher.run(job, alone);
    },
    result: (teamId, sessionId, callId, result) =>
      ledger.batcher.run(() => ledger.result(teamId, sessionId, callId, result, clock), { alone: isLarge(result) }),
    list: async (teamId, sessionId, options = {}) => {
      ledger.sessions.get(teamId, sessionId);
      return ledger.sessions.calls(teamId, sessionId, options.afterSeq ?? 0, options.limit ?? 1_000_000);
    },
  };
}

/** Crossings of one session and the magnitude search across sessions. */
export function sqliteCrossings({ db, ledger }: SqliteParts): port.CrossingsRepo {
  return {
    ofSession: async (teamId, sessionId, options = {}) => {
      ledger.sessions.get(teamId, sessionId);
      return ledger.sessions.crossings(teamId, sessionId, options.afterSeq ?? 0, options.uptoSeq);
    },
    search: async (teamId, filter) => findCrossings(db.sqlite, teamId, filter),
  };
}

/** Answer audits: the session's outputs read and the audit stored in one IMMEDIATE transaction. */
export function sqliteAudits({ db, ledger, audits }: SqliteParts, clock: Clock): port.AuditsRepo {
  return {
    audit: async (teamId, sessionId, input) =>
      db.sqlite
        .transaction(() => {
          const session = ledger.sessions.get(teamId, sessionId);
          // API.md: an audit without context uses the session's context (the question), so numbers repeated from it are quoted.
          const context = input.context ?? session.context;
          const result = auditAnswer(input.answer, ledger.sessions.history(sessionId).all(), { context });
          const stored = audits.insert(
            teamId,
            sessionId,
            { answer: input.answer, context, ok: result.ok, numbers: result.numbers },
            clock.now(),
          );
          return { id: stored.id, ok: result.ok, context, numbers: result.numbers };
        })
        .immediate(),
    list: async (teamId, sessionId) => {
      ledger.sessions.get(teamId, sessionId);
      return audits.forSession(teamId, sessionId);
    },
  };
}

/** Manifests, read in one snapshot. */
export function sqliteManifests({ ledger }: SqliteParts): port.ManifestsRepo {
  return { load: async (teamId, sessionId) => loadManifest(ledger, teamId, sessionId) };
}

/** Pack readings and pack calls, each one group-committed unit. */
export function sqlitePacks({ ledger }: SqliteParts, clock: Clock): port.PacksRepo {
  return {
    record: (teamId, sessionId, tool, readings) =>
      ledger.batcher.run(() => {
        ledger.sessions.get(teamId, sessionId);
        for (const r of readings) {
          const c = ledger.call(teamId, sessionId, tool, r.args, clock);
          // A refused reading call takes no result (409 otherwise), as a guarded call's would not.
          if (c.ok) ledger.result(teamId, sessionId, c.call_id, r.quantity, clock);
        }
      }),
    call: (teamId, sessionId, tool, declaration, args, result) =>
      ledger.batcher.run((): port.PackCallAnswer => {
        if (!ledger.tools.latest(teamId, tool)) ledger.tools.put(teamId, tool, declaration, ledger.datums(teamId));
        const call = ledger.call(teamId, sessionId, tool, args, clock);
        const labelled = call.ok ? ledger.result(teamId, sessionId, call.call_id, result, clock) : null;
        return {
          ...call,
          result: labelled?.result ?? null,
          result_ok: labelled?.ok ?? null,
          result_violations: labelled?.violations ?? [],
        };
      }),
  };
}
