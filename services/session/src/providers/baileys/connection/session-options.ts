import type { Instance } from "@gw/contracts";
import type { makeWASocket, WABrowserDescription, WAMessage, WAMessageKey, WAVersion } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";
import type { BaileysLogger } from "./auth-state.ts";
import type { PolicyTuning } from "./policy.ts";

/**
 * The options of a Baileys session (index.ts, session.ts), read by its connection, sockets and
 * pairing; and the two things made from the instance and the provider context for every socket:
 * the browser tuple the phone lists and Baileys' logger.
 */

export interface BaileysSessionOptions {
  /** Protocol version to claim; default `BAILEYS_VERSION` from config, else Baileys' bundled one. */
  version?: WAVersion;
  /**
   * Asked for a version again after a 405 (outdated client). Default: the same source as
   * `version`. Wire it to a central resolver if one exists (reference §1.6); never the internet here.
   */
  resolveVersion?: () => WAVersion | undefined | Promise<WAVersion | undefined>;
  /** The socket factory; Baileys' own `makeWASocket` unless a test wraps it. */
  makeSocket?: typeof makeWASocket;
  /** Overrides the browser tuple built from `instance.settings.client`. */
  browser?: WABrowserDescription;
  /** Pairing-code requests allowed per instance per window (default 5 per 10 min). */
  pairingCodeLimit?: { max: number; windowMs: number };
  /** How long `requestPairingCode` waits for the socket to be ready (first QR); default 30 s. */
  pairingReadyTimeoutMs?: number;
  /** Bound on a logout: the connection a disconnected session opens for it and `sock.logout()`, before the auth state is wiped anyway; default 10 s. */
  logoutTimeoutMs?: number;
  /** Reconnect policy tuning (tests shorten the delays). */
  policy?: Partial<PolicyTuning>;
  /**
   * The stored message for a key (quotes, reactions to bare ids, and Baileys' `getMessage` for
   * retries). Keys built from a bare id carry only `remoteJid` and `id`. Default: the instance's
   * kept raw messages (`ctx.rawMessages`: sent and received, 7 days); tests may replace it.
   */
  loadMessage?: (key: WAMessageKey) => Promise<WAMessage | undefined>;
  /** How long `checkExists` waits for the LID of a number that exists; default 5 s (then `lid: null`). */
  lidLookupTimeoutMs?: number;
}

/** `[deviceName, browserName, version]`: the phone lists the device as "deviceName", pairing shows "browserName (deviceName)". */
export function browserFromSettings(instance: Instance): WABrowserDescription {
  const client = instance.settings?.client;
  const device = client?.deviceName?.trim() || "Messaging Gateway";
  let browser = client?.browserName?.trim() || "Chrome";
  // Baileys switches to its experimental Android client profile when the name says "android".
  if (browser.toLowerCase().includes("android")) browser = "Chrome";
  return [device, browser, "1.0.0"];
}

/** Pino's level, but never chattier than `warn` (reference §1.1). */
export function baileysLogger(ctx: ProviderContext): BaileysLogger {
  const parent = ctx.log;
  const level = parent.levelVal > 40 ? parent.level : "warn";
  return parent.child({ provider: "baileys", instanceId: ctx.instance.id }, { level });
}
