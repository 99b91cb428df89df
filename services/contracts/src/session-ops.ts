import { businessOps } from "./areas/business.ts";
import { callsOps } from "./areas/calls.ts";
import { channelsOps } from "./areas/channels.ts";
import { contactsOps } from "./areas/contacts.ts";
import { groupsOps } from "./areas/groups.ts";
import { labelsOps } from "./areas/labels.ts";
import { presenceOps } from "./areas/presence.ts";
import { profileOps } from "./areas/profile.ts";
import { statusOps } from "./areas/status.ts";
import { templateOps } from "./areas/templates.ts";
import type { OpCallInput, OpHandlers, OpOutput } from "./ops.ts";

/**
 * Every session operation of the feature areas (contracts/src/areas), by name `area.op`. The
 * gateway calls them on an instance's owner with `SessionApi.op`; providers implement them per
 * area (providers/<provider>/<area>.ts); the capability table says which route needs which.
 */
export const SESSION_OPS = {
  ...businessOps,
  ...templateOps,
  ...profileOps,
  ...presenceOps,
  ...labelsOps,
  ...statusOps,
  ...channelsOps,
  ...groupsOps,
  ...contactsOps,
  ...callsOps,
};
export type SessionOps = typeof SESSION_OPS;
export type SessionOpName = keyof SessionOps;
export type SessionOpInput<N extends SessionOpName> = OpCallInput<SessionOps, N>;
export type SessionOpOutput<N extends SessionOpName> = OpOutput<SessionOps, N>;
/** What a provider implements: some of the operations. */
export type SessionOpHandlers = OpHandlers<SessionOps>;

export function isSessionOp(name: string): name is SessionOpName {
  return Object.hasOwn(SESSION_OPS, name);
}
