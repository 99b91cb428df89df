import { type StatusReasonCode, UNREACHABLE_RE } from "@gw/contracts";
import { DisconnectReason } from "@whiskeysockets/baileys";

/**
 * What to do when a Baileys socket closes (reference §1.3). Pure: the session passes the close
 * error's status code and message, whether the creds are paired, and its recent disconnects.
 *
 * | code                          | action                                                          |
 * |-------------------------------|-----------------------------------------------------------------|
 * | 515 restartRequired           | reconnect-now (flush creds first); > 3 in 1 min → backoff        |
 * | 401 loggedOut                 | logged-out "device_removed" (conflict) / "unauthorized": wipe, stop |
 * | 411 multideviceMismatch       | logged-out "multidevice_mismatch": wipe, stop                   |
 * | 403 forbidden                 | failed "forbidden": keep creds, no reconnect                    |
 * | 408 "QR refs attempts ended", unpaired | qr-expired: stop, STOPPED "qr_expired" (a new start = new QR) |
 * | 408 / 428 / 503 / other / none| backoff: exponential (1 s · 2^n, ≤ 60 s) with jitter           |
 * | 500 badSession                | backoff; the 5th 500 in a row within 10 min → failed "bad_session" |
 * | 405 (outdated client version) | backoff + refresh the version; 5th in a row → failed "version_rejected" |
 * | 440 conflict device_removed   | logged-out "device_removed" (unlinked from the phone)           |
 * | 440 connectionReplaced        | replaced-backoff ≥ 15 s, doubling; 4th within 10 min → failed "replaced_by_another_connection" |
 */

export interface PolicyTuning {
  /** Generic backoff: base · 2^(n-1), n = disconnects (not 515) in `backoffWindowMs`, ≤ max. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  backoffWindowMs: number;
  /** 440: base · 2^(k-1), k = 440s in `replacedWindowMs`; FAILED when k reaches `replacedMaxInWindow`. */
  replacedBaseMs: number;
  replacedMaxMs: number;
  replacedWindowMs: number;
  replacedMaxInWindow: number;
  /** 500 / 405 in a row (within `streakWindowMs`) before giving up. */
  badSessionMax: number;
  versionRejectedMax: number;
  streakWindowMs: number;
  /** 515 more often than this within the window is no longer "normal": back off instead. */
  restartMaxInWindow: number;
  restartWindowMs: number;
}

export const DEFAULT_TUNING: PolicyTuning = {
  backoffBaseMs: 1_000,
  backoffMaxMs: 60_000,
  backoffWindowMs: 5 * 60_000,
  replacedBaseMs: 15_000,
  replacedMaxMs: 120_000,
  replacedWindowMs: 10 * 60_000,
  replacedMaxInWindow: 4,
  badSessionMax: 5,
  versionRejectedMax: 5,
  streakWindowMs: 10 * 60_000,
  restartMaxInWindow: 3,
  restartWindowMs: 60_000,
};

/** History entries are kept at most this long (the longest window). */
export const HISTORY_MAX_AGE_MS = 10 * 60_000;
const HISTORY_MAX_ENTRIES = 64;

/** 405 is not in Baileys' enum: `<failure reason=405>`, the claimed client version is outdated. */
export const VERSION_REJECTED = 405;

export interface Disconnect {
  /** `lastDisconnect.error.output.statusCode` (a Boom); undefined for a non-Boom error. */
  statusCode: number | undefined;
  message: string;
  /** Whether the creds are paired (a QR or code was accepted). */
  registered: boolean;
  /** `type` of a stream error's `<conflict>` child (`replaced`, `device_removed`), when there is one. */
  conflictType?: string;
}

export interface DisconnectRecord {
  at: number;
  statusCode: number | undefined;
}

/**
 * What to do about a close. `reason` is the instance's reason code (contracts status-reasons.ts)
 * and `detail` what the network said; a logout's `reason` is how it was logged out (the detail of
 * `logged_out`).
 */
export type DisconnectAction =
  | { kind: "reconnect-now"; reason: string }
  | { kind: "backoff"; delayMs: number; reason: StatusReasonCode; detail: string; refreshVersion?: boolean }
  | { kind: "replaced-backoff"; delayMs: number; reason: "replaced"; detail: string }
  | { kind: "logged-out"; reason: string }
  | { kind: "qr-expired"; reason: "qr_expired" }
  | { kind: "failed"; reason: StatusReasonCode; detail: string };

export interface DecideOptions {
  now?: number;
  /** [0, 1); Math.random by default. */
  random?: () => number;
  tuning?: Partial<PolicyTuning>;
}

interface BoomLike {
  message?: unknown;
  output?: { statusCode?: unknown };
  /** Stream errors carry the reason node: `{tag: 'conflict', attrs: {type}}`. */
  data?: { tag?: unknown; attrs?: { type?: unknown } } | null;
}

/** Status code, message and conflict type of a `lastDisconnect.error` (Boom or not). */
export function describeDisconnectError(error: unknown): Omit<Disconnect, "registered"> {
  if (error === undefined || error === null) return { statusCode: undefined, message: "" };
  const e = error as BoomLike;
  const code = e.output?.statusCode;
  const data = typeof e.data === "object" && e.data !== null ? e.data : undefined;
  const conflictType = data?.tag === "conflict" && typeof data.attrs?.type === "string" ? data.attrs.type : undefined;
  return {
    statusCode: typeof code === "number" && Number.isFinite(code) ? code : undefined,
    message: typeof e.message === "string" ? e.message : String(error),
    ...(conflictType ? { conflictType } : {}),
  };
}

const QR_ENDED = /QR refs attempts ended/i;

/**
 * The reason code of a close that is retried. Baileys maps DNS and connection errors of the
 * WebSocket to 408 (`getCodeFromWSError`), like a keep-alive timeout: the message tells them apart
 * (`getaddrinfo ENOTFOUND web.whatsapp.com` is a network that cannot be reached, not a slow one).
 */
function reasonFor(code: number | undefined, message: string): StatusReasonCode {
  if (UNREACHABLE_RE.test(message)) return "network_unreachable";
  switch (code) {
    case DisconnectReason.connectionClosed:
      return "connection_closed";
    case DisconnectReason.badSession:
      return "stream_error";
    case DisconnectReason.unavailableService:
      return "network_unavailable";
    case VERSION_REJECTED:
      return "version_rejected";
    default:
      return "connection_lost";
  }
}

/** What the network said, for `detail`: its code and message. */
const detailOf = (d: Pick<Disconnect, "statusCode" | "message">) =>
  [d.statusCode !== undefined ? String(d.statusCode) : "", d.message].filter(Boolean).join(" ") || "no error given";

export function decideDisconnect(
  d: Disconnect,
  history: readonly DisconnectRecord[],
  opts: DecideOptions = {},
): DisconnectAction {
  const t: PolicyTuning = { ...DEFAULT_TUNING, ...opts.tuning };
  const now = opts.now ?? Date.now();
  const random = opts.random ?? Math.random;
  const within = (ms: number) => history.filter((h) => now - h.at <= ms);
  /** How many of the newest records (within the window) carry `code`, stopping at the first other code. */
  const streak = (code: number) => {
    let n = 0;
    for (let i = history.length - 1; i >= 0; i--) {
      const h = history[i]!;
      if (now - h.at > t.streakWindowMs || h.statusCode !== code) break;
      n++;
    }
    return n;
  };
  const backoff = (reason: StatusReasonCode, extra: { refreshVersion?: boolean } = {}): DisconnectAction => {
    const n = within(t.backoffWindowMs).filter((h) => h.statusCode !== DisconnectReason.restartRequired).length + 1;
    const full = Math.min(t.backoffMaxMs, t.backoffBaseMs * 2 ** Math.min(n - 1, 30));
    // Equal jitter: never less than half the step, so instances spread out but never spin.
    const delayMs = Math.round(full / 2 + random() * (full / 2));
    return { kind: "backoff", delayMs, reason, detail: detailOf(d), ...extra };
  };

  const code = d.statusCode;
  switch (code) {
    case DisconnectReason.restartRequired: {
      const recent = within(t.restartWindowMs).filter((h) => h.statusCode === code).length;
      if (recent >= t.restartMaxInWindow) return backoff("restart_required_loop");
      return { kind: "reconnect-now", reason: "restart_required" };
    }
    case DisconnectReason.loggedOut:
      return { kind: "logged-out", reason: d.conflictType === "device_removed" ? "device_removed" : "unauthorized" };
    case DisconnectReason.multideviceMismatch:
      return { kind: "logged-out", reason: "multidevice_mismatch" };
    case DisconnectReason.forbidden:
      return { kind: "failed", reason: "forbidden", detail: detailOf(d) };
    case DisconnectReason.connectionReplaced: {
      // `<conflict type="device_removed">` without a code also maps to 440: the phone unlinked us.
      if (d.conflictType === "device_removed") return { kind: "logged-out", reason: "device_removed" };
      const k = within(t.replacedWindowMs).filter((h) => h.statusCode === code).length + 1;
      if (k >= t.replacedMaxInWindow) {
        return { kind: "failed", reason: "replaced_by_another_connection", detail: detailOf(d) };
      }
      const step = Math.min(t.replacedMaxMs, t.replacedBaseMs * 2 ** (k - 1));
      // Jitter only upwards: the floor is the whole step, never a tight loop.
      const delayMs = Math.round(step + random() * (step / 4));
      return { kind: "replaced-backoff", delayMs, reason: "replaced", detail: detailOf(d) };
    }
    case DisconnectReason.badSession:
      if (streak(code) + 1 >= t.badSessionMax) return { kind: "failed", reason: "bad_session", detail: detailOf(d) };
      return backoff(reasonFor(code, d.message));
    case VERSION_REJECTED:
      if (streak(code) + 1 >= t.versionRejectedMax) {
        return { kind: "failed", reason: "version_rejected", detail: detailOf(d) };
      }
      return backoff("version_rejected", { refreshVersion: true });
    case DisconnectReason.timedOut:
      // Unpaired and the server's QR refs are used up: nobody scanned. A paired session never shows a QR.
      if (!d.registered && QR_ENDED.test(d.message)) return { kind: "qr-expired", reason: "qr_expired" };
      return backoff(reasonFor(code, d.message));
    default:
      return backoff(reasonFor(code, d.message));
  }
}

/** Appends a disconnect and drops what no window looks at any more. */
export function recordDisconnect(
  history: readonly DisconnectRecord[],
  rec: DisconnectRecord,
  maxAgeMs = HISTORY_MAX_AGE_MS,
): DisconnectRecord[] {
  return [...history, rec].filter((h) => rec.at - h.at <= maxAgeMs).slice(-HISTORY_MAX_ENTRIES);
}
