import { renderOfficial } from "./official.ts";
import type { Tab } from "./page.ts";
import { renderPairing } from "./pairing.ts";

/** The first tab: pairing for a standard instance, the operator's number for an official one. */
export const renderOverview: Tab = (root, page) =>
  page.instance().kind === "official" ? renderOfficial(root, page) : renderPairing(root, page);
