import {
  type BinaryNode,
  DisconnectReason,
  getCodeFromWSError,
  getErrorCodeFromStreamError,
} from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { Boom } from "../test/testing.ts";
import {
  DEFAULT_TUNING,
  type DisconnectAction,
  type DisconnectRecord,
  decideDisconnect,
  describeDisconnectError,
  recordDisconnect,
  VERSION_REJECTED,
} from "./policy.ts";

// Errors exactly as Baileys builds them (Socket/socket.js): stream errors from the reason node,
// `<failure reason=N>` as "Connection Failure", WS errors through getCodeFromWSError.
const streamError = (node: BinaryNode) => {
  const { reason, statusCode } = getErrorCodeFromStreamError(node);
  const [reasonNode] = Array.isArray(node.content) ? node.content : [];
  return new Boom(`Stream Errored (${reason})`, { statusCode, data: reasonNode || node });
};
const failure = (reason: number) =>
  new Boom("Connection Failure", { statusCode: reason, data: { reason: String(reason) } });
const wsError = (err: Error) =>
  new Boom(`WebSocket Error (${err.message})`, { statusCode: getCodeFromWSError(err), data: err });

const restartRequired = () => streamError({ tag: "stream:error", attrs: { code: "515" }, content: [] });
const conflict = (type: string) =>
  streamError({ tag: "stream:error", attrs: {}, content: [{ tag: "conflict", attrs: { type } }] });
const unknownStreamError = () =>
  streamError({ tag: "stream:error", attrs: {}, content: [{ tag: "xml-not-well-formed", attrs: {} }] });
const qrEnded = () => new Boom("QR refs attempts ended", { statusCode: DisconnectReason.timedOut });
const connectionLost = () => new Boom("Connection was lost", { statusCode: DisconnectReason.connectionLost });
const connectionClosed = () => new Boom("Connection Terminated", { statusCode: DisconnectReason.connectionClosed });

const decide = (
  error: unknown,
  history: DisconnectRecord[] = [],
  {
    registered = true,
    now = 1_000_000,
    random = (): number => 0.5,
  }: { registered?: boolean; now?: number; random?: () => number } = {},
): DisconnectAction => decideDisconnect({ ...describeDisconnectError(error), registered }, history, { now, random });

/** Replays a run where every reconnect fails the same way, the moment it is tried. */
function simulate(makeError: () => unknown, maxSteps = 50, random = () => 0.5) {
  let now = 0;
  let history: DisconnectRecord[] = [];
  const actions: DisconnectAction[] = [];
  for (let i = 0; i < maxSteps; i++) {
    const error = makeError();
    const action = decideDisconnect({ ...describeDisconnectError(error), registered: true }, history, {
      now,
      random,
    });
    actions.push(action);
    history = recordDisconnect(history, { at: now, statusCode: describeDisconnectError(error).statusCode });
    if (action.kind !== "backoff" && action.kind !== "replaced-backoff" && action.kind !== "reconnect-now") break;
    now += "delayMs" in action ? action.delayMs : 0;
  }
  return actions;
}

describe("describeDisconnectError", () => {
  it("reads Baileys' Boom errors, conflict types and plain errors", () => {
    expect(describeDisconnectError(restartRequired())).toEqual({
      statusCode: 515,
      message: "Stream Errored (restart required)",
    });
    expect(describeDisconnectError(conflict("replaced"))).toEqual({
      statusCode: 440,
      message: "Stream Errored (conflict)",
      conflictType: "replaced",
    });
    expect(describeDisconnectError(new Error("boom"))).toEqual({ statusCode: undefined, message: "boom" });
    expect(describeDisconnectError(undefined)).toEqual({ statusCode: undefined, message: "" });
  });
});

describe("decideDisconnect", () => {
  it("515 restart required reconnects at once (the normal step after pairing)", () => {
    expect(decide(restartRequired())).toEqual({ kind: "reconnect-now", reason: "restart_required" });
    expect(decide(restartRequired(), [], { registered: false }).kind).toBe("reconnect-now");
  });

  it("515 over and over is no longer normal: it backs off instead of looping", () => {
    const actions = simulate(restartRequired, 6);
    expect(actions.slice(0, 3).map((a) => a.kind)).toEqual(["reconnect-now", "reconnect-now", "reconnect-now"]);
    expect(actions[3]).toMatchObject({ kind: "backoff", reason: "restart_required_loop" });
  });

  it("401 logged out and 411 multi-device mismatch wipe and stop", () => {
    expect(decide(conflict("device_removed"))).toEqual({ kind: "logged-out", reason: "device_removed" });
    expect(
      decide(
        streamError({
          tag: "stream:error",
          attrs: { code: "401" },
          content: [{ tag: "conflict", attrs: { type: "device_removed" } }],
        }),
      ),
    ).toEqual({ kind: "logged-out", reason: "device_removed" });
    expect(decide(failure(401))).toEqual({ kind: "logged-out", reason: "unauthorized" });
    expect(decide(new Boom("Intentional Logout", { statusCode: DisconnectReason.loggedOut }))).toEqual({
      kind: "logged-out",
      reason: "unauthorized",
    });
    expect(
      decide(new Boom("Multi-device beta not joined", { statusCode: DisconnectReason.multideviceMismatch })),
    ).toEqual({ kind: "logged-out", reason: "multidevice_mismatch" });
  });

  it("403 forbidden (banned/blocked) fails without reconnecting", () => {
    expect(decide(failure(DisconnectReason.forbidden))).toEqual({
      kind: "failed",
      reason: "forbidden",
      detail: "403 Connection Failure",
    });
  });

  it("408 'QR refs attempts ended' while unpaired is a QR expiry; other 408s back off", () => {
    expect(decide(qrEnded(), [], { registered: false })).toEqual({ kind: "qr-expired", reason: "qr_expired" });
    // a paired session shows no QR: a 408 there is a timeout like any other
    expect(decide(qrEnded(), [], { registered: true }).kind).toBe("backoff");
    expect(decide(connectionLost(), [], { registered: false })).toMatchObject({
      kind: "backoff",
      reason: "connection_lost",
    });
    expect(decide(new Boom("Timed Out", { statusCode: DisconnectReason.timedOut }))).toMatchObject({
      kind: "backoff",
      reason: "connection_lost",
      detail: "408 Timed Out",
    });
  });

  it("428, 503, transient 500, WS errors and non-Boom errors back off with jitter", () => {
    const nodeErr = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), { code: "ECONNREFUSED" });
    const cases: [unknown, string][] = [
      [connectionClosed(), "connection_closed"],
      [
        new Boom("Connection Terminated by Server", { statusCode: DisconnectReason.connectionClosed }),
        "connection_closed",
      ],
      [streamError({ tag: "stream:error", attrs: { code: "503" }, content: [] }), "network_unavailable"],
      [unknownStreamError(), "stream_error"],
      // A network that cannot be reached (Baileys maps these WS errors to 408 like a timeout).
      [wsError(nodeErr), "network_unreachable"],
      [wsError(new Error("getaddrinfo ENOTFOUND web.whatsapp.com")), "network_unreachable"],
      [wsError(new Error("Unexpected server response: 502")), "connection_lost"],
      [new Error("something else"), "connection_lost"],
      [undefined, "connection_lost"],
    ];
    for (const [error, reason] of cases) {
      const lo = decide(error, [], { random: () => 0 });
      const hi = decide(error, [], { random: () => 0.999999 });
      expect(lo).toMatchObject({ kind: "backoff", reason });
      // first step: base 1 s with equal jitter → [0.5 s, 1 s]
      expect(lo.kind === "backoff" && lo.delayMs).toBe(500);
      expect(hi.kind === "backoff" && hi.delayMs).toBe(1000);
    }
  });

  it("backoff grows exponentially, is capped, and never drops below half a step", () => {
    for (const random of [() => 0, () => 0.5, () => 0.999]) {
      const actions = simulate(connectionClosed, 40, random);
      expect(actions).toHaveLength(40);
      const delays = actions.map((a) => (a.kind === "backoff" ? a.delayMs : -1));
      expect(delays.every((d) => d >= DEFAULT_TUNING.backoffBaseMs / 2)).toBe(true);
      expect(delays.every((d) => d <= DEFAULT_TUNING.backoffMaxMs)).toBe(true);
      expect(delays.slice(0, 6)).toEqual(delays.slice(0, 6).sort((a, b) => a - b));
      expect(Math.max(...delays)).toBeGreaterThanOrEqual(DEFAULT_TUNING.backoffMaxMs / 2);
    }
    // a lone disconnect after a quiet period starts over at the first step
    const old = [{ at: 0, statusCode: 428 }];
    expect(decide(connectionClosed(), old, { now: DEFAULT_TUNING.backoffWindowMs + 1, random: () => 0 })).toMatchObject(
      { delayMs: 500 },
    );
  });

  it("500 on every connect: backs off, then fails as a bad session", () => {
    const actions = simulate(unknownStreamError);
    expect(actions.map((a) => a.kind)).toEqual(["backoff", "backoff", "backoff", "backoff", "failed"]);
    expect(actions.at(-1)).toMatchObject({ kind: "failed", reason: "bad_session" });
    // another code in between breaks the streak
    const mixed: DisconnectRecord[] = [
      { at: 1, statusCode: 500 },
      { at: 2, statusCode: 500 },
      { at: 3, statusCode: 428 },
      { at: 4, statusCode: 500 },
    ];
    expect(decide(unknownStreamError(), mixed, { now: 5 }).kind).toBe("backoff");
    // and so does time: 500s a day apart are not a corrupt session
    const spread = [1, 2, 3, 4].map((d) => ({ at: d * 86_400_000, statusCode: 500 }));
    expect(decide(unknownStreamError(), spread, { now: 5 * 86_400_000 }).kind).toBe("backoff");
  });

  it("405 refreshes the version and retries without wiping; repeated it fails", () => {
    expect(decide(failure(VERSION_REJECTED))).toMatchObject({
      kind: "backoff",
      reason: "version_rejected",
      refreshVersion: true,
    });
    const actions = simulate(() => failure(VERSION_REJECTED));
    expect(actions.at(-1)).toMatchObject({ kind: "failed", reason: "version_rejected" });
    expect(actions.some((a) => a.kind === "logged-out")).toBe(false);
  });

  it("440 replaced: hard back-off (≥ 15 s, doubling), never a tight loop, then FAILED", () => {
    for (const random of [() => 0, () => 0.999]) {
      const actions = simulate(() => conflict("replaced"), 50, random);
      const waits = actions.filter((a) => a.kind === "replaced-backoff");
      expect(waits.length).toBe(DEFAULT_TUNING.replacedMaxInWindow - 1);
      for (const [i, a] of waits.entries()) {
        const step = DEFAULT_TUNING.replacedBaseMs * 2 ** i;
        expect(a.kind === "replaced-backoff" && a.delayMs).toBeGreaterThanOrEqual(step);
        expect(a.kind === "replaced-backoff" && a.delayMs).toBeLessThanOrEqual(step * 1.25);
      }
      expect(actions.at(-1)).toMatchObject({ kind: "failed", reason: "replaced_by_another_connection" });
      // Over the whole fight: 4 connections at most, at least 105 s apart in total.
      const total = waits.reduce((s, a) => s + (a.kind === "replaced-backoff" ? a.delayMs : 0), 0);
      expect(total).toBeGreaterThanOrEqual(15_000 + 30_000 + 60_000);
    }
  });

  it("440 long after the last one starts the count again", () => {
    const old = [1, 2].map((i) => ({ at: i, statusCode: 440 }));
    const later = DEFAULT_TUNING.replacedWindowMs + 10;
    expect(decide(conflict("replaced"), old, { now: later, random: () => 0 })).toMatchObject({
      kind: "replaced-backoff",
      delayMs: 15_000,
      reason: "replaced",
    });
  });

  it("recordDisconnect keeps only what the windows look at", () => {
    let h: DisconnectRecord[] = [];
    for (let i = 0; i < 200; i++) h = recordDisconnect(h, { at: i * 1000, statusCode: 428 });
    expect(h.length).toBeLessThanOrEqual(64);
    expect(h.at(-1)).toEqual({ at: 199_000, statusCode: 428 });
    h = recordDisconnect(h, { at: 10 * 86_400_000, statusCode: 500 });
    expect(h).toEqual([{ at: 10 * 86_400_000, statusCode: 500 }]);
  });
});
