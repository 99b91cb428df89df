import type { AccountInfo, Capping, Timelock } from "@gw/contracts";
import {
  type AuthenticationCreds,
  type Contact,
  jidNormalizedUser,
  type NewChatMessageCapInfo,
  type ReachoutTimelockState,
} from "@whiskeysockets/baileys";
import { unixSeconds } from "./seconds.ts";

/** `5511999999999:12@s.whatsapp.net` → `5511999999999` (digits before `:` / `@`). */
export function phoneFromJid(jid: string | undefined): string {
  if (!jid) return "";
  const user = jid.split("@")[0]?.split(":")[0] ?? "";
  return user.replace(/\D/g, "");
}

/** `123456789:12@lid` → `123456789@lid`; empty when unknown. */
export function normalizeLid(lid: string | undefined): string {
  if (!lid) return "";
  return jidNormalizedUser(lid) || "";
}

/** The connected account as the contract names it, from Baileys' `creds.me` / `sock.user`. */
export function accountFromMe(me: Contact | undefined): AccountInfo {
  const name = me?.name && me.name !== "~" ? me.name : (me?.notify ?? me?.verifiedName ?? "");
  return { phone: phoneFromJid(me?.id), lid: normalizeLid(me?.lid), pushName: name };
}

/**
 * Paired: the server accepted a QR scan or a pairing code (`pair-success` wrote `me` and the
 * signed device identity). `creds.registered` alone is not it: Baileys sets that only in the
 * pairing-code flow, and `requestPairingCode` writes a provisional `me` before anything is paired.
 */
export function isPaired(creds: AuthenticationCreds): boolean {
  return Boolean(creds.me?.id && creds.account);
}

/** Unix seconds from a timestamp string that may be seconds or milliseconds; 0 when absent. */
function timestampOf(v: string | number | undefined): number {
  const n = typeof v === "number" ? v : Number.parseInt(v ?? "", 10);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return unixSeconds(n);
}

const int = (v: number | undefined) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);

/** Spec 2.3 from `fetchNewChatMessageCap()`; absent states take the "no restriction" value. */
export function mapCapping(info: NewChatMessageCapInfo | undefined): Capping {
  return {
    cappingStatus: info?.capping_status ?? "NONE",
    cycleStart: timestampOf(info?.cycle_start_timestamp),
    cycleEnd: timestampOf(info?.cycle_end_timestamp),
    mvStatus: info?.mv_status ?? "NOT_ELIGIBLE",
    oteStatus: info?.ote_status ?? "NOT_ELIGIBLE",
    totalQuota: int(info?.total_quota),
    usedQuota: int(info?.used_quota),
  };
}

/** Spec 2.4 from `fetchAccountReachoutTimelock()`; `timeEnforcementEnds` 0 when none. */
export function mapTimelock(state: ReachoutTimelockState | undefined): Timelock {
  const ends = state?.timeEnforcementEnds;
  return {
    enforcementType: state?.enforcementType ?? "DEFAULT",
    isActive: Boolean(state?.isActive),
    timeEnforcementEnds: ends instanceof Date && !Number.isNaN(ends.getTime()) ? Math.floor(ends.getTime() / 1000) : 0,
  };
}
