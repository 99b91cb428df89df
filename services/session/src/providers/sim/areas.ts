import type { AccountInfo, ApiError, SessionOpHandlers } from "@gw/contracts";
import type { ProviderContext } from "../contract.ts";
import { simCalls } from "./calls.ts";
import { simChannels } from "./channels.ts";
import { simContacts } from "./contacts.ts";
import { simGroups } from "./groups.ts";
import { simLabels } from "./labels.ts";
import { simPresence } from "./presence.ts";
import { simProfile } from "./profile.ts";
import { simStatus } from "./status.ts";

/**
 * What a feature area's module of the sim provider gets (providers/sim/<area>.ts): simnet's
 * request/response, the provider context (events, identity rewriting, the instance), and the
 * simnet frames of its own types.
 */
export interface SimArea {
  /**
   * One simnet operation (docs/simnet.md "Operations"). Refusals become the spec's errors: the
   * area's own `errors` by simnet code first, then the provider's common table (errors.ts).
   */
  request(op: string, args: unknown, errors?: Record<string, () => ApiError>): Promise<unknown>;
  readonly ctx: ProviderContext;
  /** Handles simnet frames of `type` (the area's notifications). */
  onFrame(type: string, handler: (frame: Record<string, unknown>) => void | Promise<void>): void;
  /**
   * Reshapes the payload of simnet's `event` frames of `kind` before they are emitted (privacy ids
   * rewritten to numbers, spec 1 rule 3); without one, the payload is emitted as simnet shaped it.
   */
  onEvent(kind: string, transform: (payload: Record<string, unknown>) => Promise<Record<string, unknown>>): void;
  /** Runs each time the connection opens (after pairing or a reconnection), with the account. */
  onOpen(handler: (me: AccountInfo) => void | Promise<void>): void;
}

/** An area's operations on simnet; registered in SIM_AREAS. */
export type SimAreaModule = (area: SimArea) => SessionOpHandlers;

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
