import { deviceStillLinked } from "@gw/contracts";
import { DisconnectReason, type WASocket } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";
import { isPaired } from "../account.ts";
import { withTimeout } from "../with-timeout.ts";
import type { BaileysLogger, RedisAuthState } from "./auth-state.ts";
import { describeDisconnectError } from "./policy.ts";

/**
 * Logout's unlinking of this device on the network (connection.ts `logout`): the
 * remove-companion-device IQ on the open socket, or on a socket made just for it when not
 * connected, within the logout's budget; and when that cannot be done, the report that the wipe
 * was local only (the phone must remove the device).
 */

/** Sends the remove-companion-device IQ on an open socket; why it failed, else null. */
export async function unlink(sock: WASocket, budgetMs: number): Promise<string | null> {
  try {
    await withTimeout(sock.logout(), budgetMs);
    return null;
  } catch (err) {
    return `remove-companion-device failed (${describeDisconnectError(err).message})`;
  }
}

/** What unlinking without a connection needs of the connection. */
export interface OfflineUnlink {
  /** The auth state: the connection's, else read from the store (and kept); null when it cannot be read. */
  auth(): Promise<RedisAuthState | null>;
  /**
   * A socket of its own, made the connection's current one with none of the session's handlers:
   * never two sockets (a start() or stop() meanwhile ends it), and its events are nobody's news.
   */
  adopt(auth: RedisAuthState): WASocket;
  /** Ends a socket; its close event is ignored. */
  retire(sock: WASocket): Promise<void>;
}

/**
 * Not connected: connects just to unlink, then ends. Null when unlinked, or when there is no
 * device to unlink (never paired) or the network already dropped it (401 on connect); else why not.
 */
export async function unlinkOffline(budgetMs: number, conn: OfflineUnlink): Promise<string | null> {
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const auth = await conn.auth();
  if (!auth) return "the stored pairing could not be read";
  if (!isPaired(auth.state.creds)) return null;
  let sock: WASocket;
  try {
    sock = conn.adopt(auth);
  } catch (err) {
    return `could not create a socket (${describeDisconnectError(err).message})`;
  }
  try {
    await sock.waitForConnectionUpdate(async (u) => u.connection === "open", left());
  } catch (err) {
    await conn.retire(sock);
    const { statusCode, message } = describeDisconnectError(err);
    // Refused as logged out: the device is no longer linked (removed on the phone meanwhile).
    if (statusCode === DisconnectReason.loggedOut) return null;
    return statusCode === DisconnectReason.timedOut && /timed out/i.test(message)
      ? `no connection to the network within ${budgetMs} ms`
      : `the connection failed (${statusCode ?? "no code"}: ${message})`;
  }
  const why = await unlink(sock, left());
  await conn.retire(sock);
  return why;
}

/** The wipe was local only: the operator must know the phone still lists the device. */
export function reportLocalLogout(ctx: ProviderContext, log: BaileysLogger, why: string): void {
  log.warn(
    { why },
    "logout: the device could not be removed on the network; credentials wiped here only — remove it on the phone (Linked devices)",
  );
  ctx.emit({ type: "status", status: "STOPPED", cause: deviceStillLinked(why) });
}
