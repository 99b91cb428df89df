import type { SessionOpHandlers } from "@gw/contracts";
import type { SimArea, SimAreaModule } from "../area.ts";
import { simCalls } from "./calls.ts";
import { simChannels } from "./channels.ts";
import { simContacts } from "./contacts.ts";
import { simGroups } from "./groups.ts";
import { simLabels } from "./labels.ts";
import { simPresence } from "./presence.ts";
import { simProfile } from "./profile.ts";
import { simStatus } from "./status.ts";

/**
 * The list of the sim provider's area modules, and the operations they make together. The types
 * an area module is written against are in ../area.ts, which imports none of them.
 */

/** Every area module of the sim provider. */
export const SIM_AREAS: SimAreaModule[] = [
  simProfile,
  simPresence,
  simLabels,
  simStatus,
  simChannels,
  simGroups,
  simContacts,
  simCalls,
];

export function simOps(area: SimArea): SessionOpHandlers {
  return Object.assign({}, ...SIM_AREAS.map((m) => m(area)));
}
