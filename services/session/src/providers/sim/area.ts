import type { AccountInfo, ApiError, InboundMessage, SessionOpHandlers } from "@gw/contracts";
import type { ProviderContext } from "../contract.ts";

/**
 * The sim provider's area registry, its types only: what a feature area's module gets
 * (areas/<area>.ts) and what it answers. Kept apart from the list (areas/index.ts), which imports
 * every area module, so that an area importing these types imports nothing that imports it back.
 */

/**
 * What a feature area's module of the sim provider gets (providers/sim/areas/<area>.ts): simnet's
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
  /**
   * simnet's `event` frames of `kind` that are messages in the provider contract's terms (a channel
   * post's reaction): `toMessage` gives the message, emitted as any message (the session builds its
   * payload as every other's), or null to emit the event as it is.
   */
  onEventMessage(kind: string, toMessage: (payload: Record<string, unknown>) => InboundMessage | null): void;
  /** Runs each time the connection opens (after pairing or a reconnection), with the account. */
  onOpen(handler: (me: AccountInfo) => void | Promise<void>): void;
}

/** An area's operations on simnet; registered in SIM_AREAS (areas/index.ts). */
export type SimAreaModule = (area: SimArea) => SessionOpHandlers;
