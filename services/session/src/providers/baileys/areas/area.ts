import type { SessionOpHandlers } from "@gw/contracts";
import type { WASocket } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";

/**
 * The registry's types, in a file of their own: the area modules (areas/<area>.ts) import them
 * and the list (areas/index.ts) imports the modules, so neither imports the other back.
 *
 * What a feature area's module of the Baileys provider gets: the open socket and the session's
 * one way of calling it (errors mapped, aborted when the socket closes), the provider context
 * (events, identity), and a hook on every socket the session makes (the area's notifications:
 * `sock.ev.on(...)`).
 */
export interface BaileysArea {
  readonly ctx: ProviderContext;
  /** The open socket, else `instance_not_connected`. */
  socket(): WASocket;
  /** A call on the open socket, its errors as the spec's (see connection/socket-calls.ts `run`). */
  call<T>(op: string, fn: (sock: WASocket) => Promise<T>): Promise<T>;
  /**
   * `listen` runs for each socket the session creates, right after the session's own handlers;
   * `current()` says whether that socket is still the session's (events of a retired one are stale).
   */
  onSocket(listen: (sock: WASocket, current: () => boolean) => void): void;
}

/** An area's operations on Baileys; registered in BAILEYS_AREAS (areas/index.ts). */
export type BaileysAreaModule = (area: BaileysArea) => SessionOpHandlers;
