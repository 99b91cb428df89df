import type { View } from "../context.ts";
import { h } from "../dom.ts";
import { openLive } from "../live.ts";
import { adminCredential, knownInstances } from "../session.ts";
import { section } from "../widgets.ts";
import { eventLog } from "./event-log.ts";

/**
 * `#/events`: every instance's events (the admin stream). Where the gateway has no stream, it
 * polls each instance this tab holds a token for; the note says so.
 */
export const renderAllEvents: View = (root, ctx) => {
  const admin = adminCredential(ctx.session);
  if (!admin) {
    ctx.go("#/");
    return undefined;
  }
  const live = openLive({ kind: "admin", cred: admin }, () => knownInstances(ctx.session));
  const mode = h("p", { class: "muted small", "data-testid": "live-mode" });
  live.onMode((m, why) => {
    mode.textContent =
      m === "polling"
        ? "No event stream on this gateway: polling the instances whose tokens this tab holds, every 2 s."
        : `live: ${m}${why ? ` (${why})` : ""}`;
  });
  const log = eventLog(live, { showInstance: true });
  root.replaceChildren(section("Live events, every instance", mode, log.el));
  return () => {
    log.stop();
    live.close();
  };
};
