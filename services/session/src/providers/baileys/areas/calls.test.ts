import { getBinaryNodeChild, type WACallEvent } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../contract.ts";
import { type AreaHarness, areaHarness } from "../test/area-rig.ts";

/**
 * Calls at Baileys' boundary: the `call` statuses Baileys reports as the spec's call events, and
 * `calls.reject` as the `<call><reject/></call>` stanza Baileys sends.
 */

const B = "5511988887777";
const B_LID = "99887766554433@lid";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

const at = new Date(1_700_000_000_000);
const callEvent = (id: string, status: WACallEvent["status"], extra: Partial<WACallEvent> = {}): WACallEvent => ({
  chatId: B_LID,
  from: B_LID,
  id,
  date: at,
  offline: false,
  status,
  ...extra,
});
const callEvents = (events: ProviderEvent[]) =>
  events.flatMap((e) => (e.type === "event" && e.kind.startsWith("call.") ? [[e.kind, e.payload] as const] : []));

describe("Baileys calls", () => {
  it("an offer is call.received with the caller's number from callerPn (its LID learnt and kept)", async () => {
    const r = await h.open();
    r.sock.ev.emit("call", [
      callEvent("C1", "offer", { callerPn: `${B}@s.whatsapp.net`, isVideo: true, isGroup: false }),
    ]);
    await expect.poll(() => callEvents(r.events).length).toBe(1);
    expect(callEvents(r.events)[0]).toEqual([
      "call.received",
      {
        id: "C1",
        chatId: `${B}@c.us`,
        from: { id: `${B}@c.us`, phone: B, lid: B_LID, pushName: "" },
        isVideo: true,
        isGroup: false,
        timestamp: 1_700_000_000,
      },
    ]);
    expect(r.known.get(B_LID)).toBe(B);
  });

  it("answered elsewhere, rejected on the phone, missed, hung up: one event each; an answered call's end is silent", async () => {
    const r = await h.open();
    const pn = { callerPn: `${B}@s.whatsapp.net` };
    r.sock.ev.emit("call", [callEvent("A1", "offer", pn), callEvent("A1", "accept"), callEvent("A1", "terminate")]);
    r.sock.ev.emit("call", [callEvent("R1", "offer", pn), callEvent("R1", "reject"), callEvent("R1", "terminate")]);
    r.sock.ev.emit("call", [callEvent("M1", "offer", pn), callEvent("M1", "timeout")]);
    r.sock.ev.emit("call", [callEvent("T1", "offer", pn), callEvent("T1", "terminate")]);
    await expect.poll(() => callEvents(r.events).length).toBe(8);
    const seen = callEvents(r.events).map(([kind, p]) => [kind, p.id, p.by ?? null, p.reason ?? null]);
    expect(seen).toEqual([
      ["call.received", "A1", null, null],
      ["call.accepted", "A1", null, null],
      ["call.received", "R1", null, null],
      ["call.rejected", "R1", "phone", "rejected"],
      ["call.received", "M1", null, null],
      ["call.rejected", "M1", "caller", "missed"],
      ["call.received", "T1", null, null],
      ["call.rejected", "T1", "caller", "cancelled"],
    ]);
    // Every payload names the caller by number (learnt from the offer).
    expect(new Set(callEvents(r.events).map(([, p]) => (p.from as { id: string }).id))).toEqual(new Set([`${B}@c.us`]));
  });

  it("an offer replayed from the offline backlog is over: not announced", async () => {
    const r = await h.open();
    r.sock.ev.emit("call", [callEvent("O1", "offer", { offline: true }), callEvent("O2", "offer")]);
    await expect.poll(() => callEvents(r.events).length).toBe(1);
    expect(callEvents(r.events)[0]![1].id).toBe("O2");
  });

  it("calls.reject sends <call to=caller><reject call-id call-creator/></call>; announced once, the echo is not", async () => {
    const r = await h.open();
    r.sock.ev.emit("call", [callEvent("X1", "offer", { callerPn: `${B}@s.whatsapp.net`, isVideo: true })]);
    await expect.poll(() => callEvents(r.events).length).toBe(1);
    const done = r.ops["calls.reject"]!({ callId: "X1", from: `${B}@c.us`, by: "auto" });
    const q = await h.answer(
      r.sock,
      (n) => n.tag === "call",
      () => [],
    );
    expect(q.attrs.to).toBe(B_LID); // the jid the call came from
    const reject = getBinaryNodeChild(q, "reject")!;
    expect(reject.attrs).toMatchObject({ "call-id": "X1", "call-creator": B_LID, count: "0" });
    expect(await done).toEqual({ success: true });
    r.sock.ev.emit("call", [callEvent("X1", "reject"), callEvent("X1", "terminate")]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rejected = callEvents(r.events).filter(([kind]) => kind === "call.rejected");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]![1]).toMatchObject({
      id: "X1",
      chatId: `${B}@c.us`,
      isVideo: true,
      by: "auto",
      reason: "rejected",
    });
  });

  it("calls.reject of a call this session never saw goes to the number given", async () => {
    const r = await h.open();
    const done = r.ops["calls.reject"]!({ callId: "Z9", from: `${B}@c.us`, by: "me" });
    const q = await h.answer(
      r.sock,
      (n) => n.tag === "call",
      () => [],
    );
    expect(q.attrs.to).toBe(`${B}@s.whatsapp.net`);
    await done;
    expect(callEvents(r.events)[0]![1]).toMatchObject({ id: "Z9", from: { phone: B }, by: "me" });
  });
});
