// The feature areas of the simulated network (labels, presence, groups, channels, …): each one a
// module with its wire operations and its control API routes (area.ts says what an area is),
// registered here. The wire (wire/wire.ts) and the control API (control/control.ts) mount them.
import type { SimnetArea } from "./area.ts";
import { callsArea } from "./calls.ts";
import { channelsArea } from "./channels.ts";
import { contactsArea } from "./contacts.ts";
import { groupsArea } from "./groups.ts";
import { labelsArea } from "./labels.ts";
import { presenceArea } from "./presence.ts";
import { profileArea } from "./profile.ts";
import { statusArea } from "./status.ts";

/** Every area of simnet. */
export const SIMNET_AREAS: SimnetArea[] = [
  profileArea,
  presenceArea,
  labelsArea,
  statusArea,
  channelsArea,
  groupsArea,
  contactsArea,
  callsArea,
];
