// Connection lifecycle shared by the wire, pairing and the control API: QR rotation, opening a
// device's session (with the `replaced` rule), closing with or without a `close` frame.
import { qrValue } from "../ids.ts";
import type { Account, Connection, Device } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import type { CloseReason } from "./protocol.ts";

/** Detaches a connection from everything; idempotent (also run on the socket's `close` event). */
export function cleanupConnection(state: SimnetState, conn: Connection): void {
  if (conn.state === "closed") return;
  conn.state = "closed";
  state.cancel(conn.qrTimer);
  state.cancel(conn.helloTimer);
  conn.qrTimer = conn.helloTimer = null;
  conn.qr = null;
  conn.passkey = null;
  state.connections.delete(conn.id);
  if (conn.deviceId) {
    const device = state.devices.get(conn.deviceId);
    if (device?.connectionId === conn.id) device.connectionId = null;
  }
  for (const [code, entry] of state.pairingCodes) if (entry.connectionId === conn.id) state.pairingCodes.delete(code);
}

/** Sends `close` with the reason, then closes the socket. */
export function closeConnection(state: SimnetState, conn: Connection, reason: CloseReason, message: string): void {
  if (conn.state === "closed") return;
  state.sendFrame(conn, { type: "close", reason, message });
  cleanupConnection(state, conn);
  conn.ws.close(1000, reason);
}

/** Cuts the socket with no `close` frame (a lost connection). */
export function dropConnection(state: SimnetState, conn: Connection): void {
  cleanupConnection(state, conn);
  conn.ws.terminate();
}

function showQr(state: SimnetState, conn: Connection): void {
  conn.qr = qrValue();
  conn.qrShown++;
  state.sendFrame(conn, { type: "qr", value: conn.qr });
  conn.qrTimer = state.later(state.opts.qrIntervalMs, () => {
    conn.qrTimer = null;
    if (conn.state !== "pairing") return;
    if (conn.qrShown >= state.opts.qrLimit) {
      closeConnection(state, conn, "qr_timeout", "no phone scanned the QR code in time");
      return;
    }
    showQr(state, conn);
  });
}

/** No credentials: the connection shows rotating QR values until a phone pairs it. */
export function startPairing(state: SimnetState, conn: Connection): void {
  conn.state = "pairing";
  showQr(state, conn);
}

/** What else a device gets right after it opens, past its queued frames (contacts: the address book). */
export const openListeners: ((state: SimnetState, conn: Connection, acc: Account) => void)[] = [];

/**
 * The device's session opens on this connection. Another open socket of the same device is the
 * older one: it is closed with `replaced`, and that counts as a conflict.
 */
export function openDevice(state: SimnetState, conn: Connection, device: Device, acc: Account): void {
  const older = device.connectionId ? state.connections.get(device.connectionId) : undefined;
  if (older && older !== conn && older.state !== "closed") {
    if (older.ws.readyState === older.ws.OPEN) {
      state.stats.conflicts++;
      state.stats.conflictLog.push({ deviceId: device.deviceId, instanceId: conn.instanceId, at: Date.now() });
      closeConnection(state, older, "replaced", "this device connected on another socket");
    } else {
      cleanupConnection(state, older); // already closing: not a second live socket
    }
  }
  state.cancel(conn.qrTimer);
  conn.qrTimer = null;
  conn.qr = null;
  conn.passkey = null;
  for (const [code, entry] of state.pairingCodes) if (entry.connectionId === conn.id) state.pairingCodes.delete(code);
  conn.state = "open";
  conn.phone = acc.phone;
  conn.deviceId = device.deviceId;
  device.connectionId = conn.id;
  device.instanceId = conn.instanceId;
  device.deviceName = conn.deviceName;
  device.browserName = conn.browserName;
  state.stats.connectionsOpened++;
  state.sendFrame(conn, { type: "open", me: state.me(acc) });
  state.flushPending(device, conn);
  for (const listen of openListeners) listen(state, conn, acc);
}

/** Closes every open connection of these devices with `logged_out` and removes the devices. */
export function logoutDevices(state: SimnetState, devices: Device[], message: string): void {
  for (const device of devices) {
    const conn = device.connectionId ? state.connections.get(device.connectionId) : undefined;
    state.removeDevice(device);
    if (conn) closeConnection(state, conn, "logged_out", message);
  }
}

/** Every connection gets `close` with this reason. */
export function closeAll(state: SimnetState, reason: "outage", message: string): void {
  for (const conn of [...state.connections.values()]) closeConnection(state, conn, reason, message);
}
