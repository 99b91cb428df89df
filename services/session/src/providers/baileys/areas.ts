import type { SessionOpHandlers } from "@gw/contracts";
import type { WASocket } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../contract.ts";
import { baileysCalls } from "./calls.ts";
import { baileysChannels } from "./channels.ts";
import { baileysContacts } from "./contacts.ts";
import { baileysGroupAcks } from "./group-acks.ts";
import { baileysGroups } from "./groups.ts";
import { baileysLabels } from "./labels.ts";
import { baileysPresence } from "./presence.ts";
import { baileysProfile } from "./profile.ts";
import { baileysStatus } from "./status.ts";

/**
 * What a feature area's module of the Baileys provider gets (providers/baileys/<area>.ts): the
 * open socket and the session's one way of calling it (errors mapped, aborted when the socket
 * closes), the provider context (events, identity), and a hook on every socket the session makes
 * (the area's notifications: `sock.ev.on(...)`).
 */
export interface BaileysArea {
  readonly ctx: ProviderContext;
  /** The open socket, else `instance_not_connected`. */
  socket(): WASocket;
  /** A call on the open socket, its errors as the spec's (see socket-calls.ts `run`). */
  call<T>(op: string, fn: (sock: WASocket) => Promise<T>): Promise<T>;
  /**
   * `listen` runs for each socket the session creates, right after the session's own handlers;
   * `current()` says whether that socket is still the session's (events of a retired one are stale).
   */
  onSocket(listen: (sock: WASocket, current: () => boolean) => void): void;
}

/** An area's operations on Baileys; registered in BAILEYS_AREAS. */
export type BaileysAreaModule = (area: BaileysArea) => SessionOpHandlers;

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
