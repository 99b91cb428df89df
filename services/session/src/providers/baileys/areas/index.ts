import type { SessionOpHandlers } from "@gw/contracts";
import type { BaileysArea, BaileysAreaModule } from "./area.ts";
import { baileysCalls } from "./calls.ts";
import { baileysChannels } from "./channels.ts";
import { baileysContacts } from "./contacts.ts";
import { baileysGroupAcks } from "./groups/group-acks.ts";
import { baileysGroups } from "./groups/groups.ts";
import { baileysLabels } from "./labels/labels.ts";
import { baileysPresence } from "./presence.ts";
import { baileysProfile } from "./profile.ts";
import { baileysStatus } from "./status.ts";

/**
 * The list of the Baileys provider's feature areas (one module each, under areas/), and the
 * session's operations made from them. Their shared types are in area.ts, below both.
 */

/** Every area module of the Baileys provider. */
export const BAILEYS_AREAS: BaileysAreaModule[] = [
  baileysProfile,
  baileysPresence,
  baileysLabels,
  baileysStatus,
  baileysChannels,
  baileysGroups,
  baileysGroupAcks,
  baileysContacts,
  baileysCalls,
];

export function baileysOps(area: BaileysArea): SessionOpHandlers {
  return Object.assign({}, ...BAILEYS_AREAS.map((m) => m(area)));
}
