// Pairing a connection to a phone: QR scan, pairing code typed on the phone, passkey.
import { randomBytes, randomInt } from "node:crypto";
import { SimnetError } from "../errors.ts";
import { crockfordCode, newChallenge, newDeviceId, newSecret, normalizeCode, phoneDigits } from "../ids.ts";
import type { Account, Connection, Device } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { openDevice } from "./connections.ts";
import type { PasskeyAssertion, SimPasskeyChallenge } from "./protocol.ts";

/** Pairing codes asked for one number within this window count towards `pairingCodeLimit`. */
const PAIRING_WINDOW_MS = 10 * 60_000;

export interface PairResult {
  phone: string;
  deviceId: string;
  instanceId: string | null;
  connectionId: string;
}

/** Links a new device of `acc` to the connection: `paired` (creds to persist), then `open`. */
export function pairConnection(state: SimnetState, conn: Connection, acc: Account): PairResult {
  const device: Device = {
    deviceId: newDeviceId(),
    secret: newSecret(),
    phone: acc.phone,
    instanceId: conn.instanceId,
    deviceName: conn.deviceName,
    browserName: conn.browserName,
    createdAt: Date.now(),
    connectionId: null,
    pending: [],
  };
  state.devices.set(device.deviceId, device);
  acc.devices.add(device.deviceId);
  state.sendFrame(conn, {
    type: "paired",
    creds: { deviceId: device.deviceId, secret: device.secret },
    me: state.me(acc),
  });
  openDevice(state, conn, device, acc);
  return { phone: acc.phone, deviceId: device.deviceId, instanceId: conn.instanceId, connectionId: conn.id };
}

function accountForPhone(state: SimnetState, raw: string, pushName?: string): Account {
  const acc = state.ensureAccount(raw, pushName ? { pushName } : {});
  if (pushName) acc.pushName = pushName;
  return acc;
}

/** The phone scans a QR value: the connection showing it (now) is paired. */
export function scanQr(state: SimnetState, phone: string, qr: string, pushName?: string): PairResult {
  const conn = [...state.connections.values()].find((c) => c.state === "pairing" && c.qr === qr);
  if (!conn) throw new SimnetError("invalid_qr", "no connection shows this QR value (expired or unknown)");
  return pairConnection(state, conn, accountForPhone(state, phone, pushName));
}

/** `pairing-code` op: a code to type on the phone, bound to the number asked for. */
export function requestPairingCode(state: SimnetState, conn: Connection, phone: string): { code: string } {
  const now = Date.now();
  if (state.pairingAttempts.size > 10_000) {
    for (const [number, times] of state.pairingAttempts)
      if (times.every((t) => now - t >= PAIRING_WINDOW_MS)) state.pairingAttempts.delete(number);
  }
  const attempts = (state.pairingAttempts.get(phone) ?? []).filter((t) => now - t < PAIRING_WINDOW_MS);
  if (attempts.length >= state.opts.pairingCodeLimit) {
    state.pairingAttempts.set(phone, attempts);
    throw new SimnetError("too_many_attempts", `too many pairing codes for ${phone}; try again later`);
  }
  attempts.push(now);
  state.pairingAttempts.set(phone, attempts);
  for (const [code, entry] of state.pairingCodes) if (entry.connectionId === conn.id) state.pairingCodes.delete(code);
  let code = crockfordCode(8);
  while (state.pairingCodes.has(code)) code = crockfordCode(8);
  state.pairingCodes.set(code, { code, phone, connectionId: conn.id, expiresAt: now + state.opts.pairingCodeTtlMs });
  return { code };
}

/**
 * The phone types a code. It must have been asked for this phone's registered number: a code
 * asked with the ninth digit for an account registered without it gets `wrong_number`.
 */
export function typePairingCode(state: SimnetState, phone: string, typed: string, pushName?: string): PairResult {
  const code = normalizeCode(typed);
  const entry = state.pairingCodes.get(code);
  if (!entry) throw new SimnetError("invalid_code", "unknown pairing code");
  if (Date.now() >= entry.expiresAt) {
    state.pairingCodes.delete(code);
    throw new SimnetError("code_expired", "this pairing code expired");
  }
  const conn = state.connections.get(entry.connectionId);
  if (conn?.state !== "pairing") {
    state.pairingCodes.delete(code);
    throw new SimnetError("invalid_code", "the connection that asked for this code is gone");
  }
  const digits = phoneDigits(phone);
  if (!digits) throw new SimnetError("validation_error", `not a phone number: ${phone}`);
  const registered = state.findAccount(digits)?.phone ?? digits;
  if (registered !== entry.phone) {
    throw new SimnetError(
      "wrong_number",
      `the code was asked for ${entry.phone}, this phone is ${registered} (Brazil: ask again without the ninth digit)`,
    );
  }
  state.pairingCodes.delete(code);
  return pairConnection(state, conn, accountForPhone(state, registered, pushName));
}

// --- passkey ---------------------------------------------------------------------------------

export function passkeyChallenge(conn: Connection): SimPasskeyChallenge {
  const challenge = newChallenge();
  conn.passkey = { challenge, phone: null, verified: false, confirmation: null };
  return {
    challenge,
    rpId: "simnet.local",
    timeout: 60_000,
    userVerification: "preferred",
    allowCredentials: [
      { id: randomBytes(16).toString("base64url"), type: "public-key", transports: ["internal", "hybrid"] },
    ],
    extensions: {},
  };
}

function decodeJson(b64url: string): unknown {
  try {
    return JSON.parse(Buffer.from(b64url, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Accepted when `response.clientDataJSON` decodes to JSON whose `challenge` is the one issued.
 * The account is the phone number carried (UTF-8 digits, base64url) in `response.userHandle`.
 */
export function passkeyAssertion(conn: Connection, assertion: PasskeyAssertion): Record<string, never> {
  const pk = conn.passkey;
  if (!pk) throw new SimnetError("invalid_passkey", "ask for a passkey challenge first");
  const client = decodeJson(assertion.response.clientDataJSON);
  const challenge =
    client && typeof client === "object" && "challenge" in client ? (client as { challenge: unknown }).challenge : null;
  if (challenge !== pk.challenge) throw new SimnetError("invalid_passkey", "the assertion does not sign our challenge");
  const handle = assertion.response.userHandle
    ? phoneDigits(Buffer.from(assertion.response.userHandle, "base64url").toString("utf8"))
    : null;
  if (!handle) throw new SimnetError("invalid_passkey", "userHandle must carry the phone number (base64url digits)");
  pk.phone = handle;
  pk.verified = true;
  return {};
}

function verifiedPasskey(conn: Connection) {
  const pk = conn.passkey;
  if (!pk?.verified || !pk.phone) throw new SimnetError("invalid_passkey", "no accepted passkey assertion yet");
  return pk as typeof pk & { phone: string };
}

export function passkeyConfirmation(conn: Connection): { code: string } {
  const pk = verifiedPasskey(conn);
  pk.confirmation ??= String(randomInt(0, 1_000_000)).padStart(6, "0");
  return { code: pk.confirmation };
}

export function passkeyConfirm(state: SimnetState, conn: Connection): Record<string, never> {
  const pk = verifiedPasskey(conn);
  pairConnection(state, conn, state.ensureAccount(pk.phone));
  return {};
}
