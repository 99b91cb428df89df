import { section } from "../widgets.ts";
import { eventLog } from "./event-log.ts";
import type { Tab } from "./page.ts";

/** The instance's live events (the page's one live connection, shared with the status badge). */
export const renderEvents: Tab = (root, page) => {
  const log = eventLog(page.live, { showInstance: false });
  root.replaceChildren(section("Live events", log.el));
  return log.stop;
};
