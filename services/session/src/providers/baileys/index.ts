import type { WAVersion } from "@whiskeysockets/baileys";
import type { ProviderFactory } from "../contract.ts";
import { type BaileysSessionOptions, createBaileysSession } from "./session.ts";

export { type RedisAuthState, useRedisAuthState } from "./connection/auth-state.ts";
export { type DisconnectAction, decideDisconnect } from "./connection/policy.ts";
export { type BaileysSessionOptions, createBaileysSession } from "./session.ts";

/** `BAILEYS_VERSION` ("2,3000,1023223821") as Baileys' tuple; undefined when unset or malformed. */
export function parseBaileysVersion(value: string | undefined): WAVersion | undefined {
  const m = value ? /^\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$/.exec(value) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** A factory with fixed options (the session manager passes `version` from its config). */
export function createBaileysProvider(opts: BaileysSessionOptions = {}): ProviderFactory {
  return (ctx) => createBaileysSession(ctx, opts);
}

/**
 * The default factory. The provider context carries no config, so the protocol version is read
 * from `BAILEYS_VERSION` in the environment (same variable and format as the platform config),
 * on every session and again after a 405; unset means Baileys' bundled version. It never asks the
 * internet (`fetchLatestBaileysVersion` needs GitHub, reference §1.6).
 */
export const baileysProvider: ProviderFactory = (ctx) => {
  const fromEnv = () => parseBaileysVersion(process.env.BAILEYS_VERSION);
  return createBaileysSession(ctx, { version: fromEnv(), resolveVersion: fromEnv });
};
