// The feature areas of the simulated network (labels, presence, groups, channels, …): each one a
// module with its wire operations and its control API routes, registered here.
import type { FastifyInstance } from "fastify";
import { callsArea } from "./calls.ts";
import { channelsArea } from "./channels.ts";
import { contactsArea } from "./contacts.ts";
import { groupsArea } from "./groups.ts";
import { labelsArea } from "./labels.ts";
import type { OpDef } from "./op-kit.ts";
import { presenceArea } from "./presence.ts";
import { profileArea } from "./profile.ts";
import type { SimnetState } from "./state.ts";
import { statusArea } from "./status.ts";

export interface SimnetArea {
  name: string;
  /** Operations a connected device asks for (`request.op`), e.g. `labels.list`. */
  ops?: Record<string, OpDef>;
  /** The area's control API routes (under `/simnet`, Bearer ADMIN_TOKEN). */
  control?(app: FastifyInstance, state: SimnetState): void;
}

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
