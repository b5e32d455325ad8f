// The Hono environment of the dashboard and what its pages receive.
import type { Hono } from "hono";
import type { Clock } from "../clock.js";
import type { WatchRepo } from "../store/port.js";
import type { DashboardRepo } from "../store/dashboard.js";
import type { UpstreamsRepo } from "../store/port.js";

/** Set by the session middleware on every page request. */
export type UiVariables = { teamId: string; teamName: string };

/** The Hono Env of the dashboard. */
export type UiEnv = { Variables: UiVariables };

/** The dashboard's sub-app. */
export type UiApp = Hono<UiEnv>;

/** What the dashboard needs: the repository it reads and the clock that says which logins have expired. */
export type UiDeps = {
  dashboard: DashboardRepo;
  clock: Clock;
  upstreams: UpstreamsRepo;
  /** The revision watch's state, shown on the revisions page. */
  watch: WatchRepo;
};
