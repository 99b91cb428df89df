// Calls end to end on simnet: a phone calls the instance (call.received), the instance rejects it
// by id (call.rejected by me; the caller sees it end), the phone answers on itself (call.accepted)
// or the caller hangs up (call.rejected by the caller); the `calls` app rejects every call at once
// and answers with a text — real HTTP, Redis, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962230001" };
const B = "5531962230002";
const C = "5531962230003";

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);

async function eventsOf(kind: string, match: (p: Record<string, any>) => boolean = () => true, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await c.events(a.id, kind)).map((e) => e.payload as Record<string, any>).filter(match);
    if (found.length > 0) return found;
    if (Date.now() > until) throw new Error(`no ${kind} matched`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(from: string, video = false): Promise<string> {
  const res = await c.sim("POST", `/simnet/phones/${from}/call`, { to: a.phone, video });
  return (await expectJson<{ id: string }>(res, 201)).id;
}
const callState = async (id: string) =>
  (await expectJson<{ state: string }>(await c.sim("GET", `/simnet/calls/${id}`))).state;

beforeAll(async () => {
  c = await startCluster();
  for (const phone of [B, C]) await c.sim("POST", "/simnet/phones", { phone });
  Object.assign(a, await c.createInstance());
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

describe("incoming calls", () => {
  it("call.received names the caller as a contact; rejecting it by id ends it for the caller", async () => {
    const id = await call(B, true);
    const [received] = await eventsOf("call.received", (p) => p.id === id);
    expect(received).toMatchObject({
      id,
      chatId: `${B}@c.us`,
      from: { id: `${B}@c.us`, phone: B },
      isVideo: true,
      isGroup: false,
    });
    expect(received!.timestamp).toEqual(expect.any(Number));
    expect(await expectJson(await api(`/calls/${id}/reject`, { method: "POST" }))).toEqual({ success: true });
    const [rejected] = await eventsOf("call.rejected", (p) => p.id === id);
    expect(rejected).toMatchObject({ id, chatId: `${B}@c.us`, from: { phone: B }, by: "me", reason: "rejected" });
    expect(await callState(id)).toBe("rejected");
    // Once over, it cannot be rejected again.
    await expectError(await api(`/calls/${id}/reject`, { method: "POST" }), 422, "validation_error");
  });

  it("answered or rejected on the phone, hung up or missed by the caller: call.accepted / call.rejected with by and reason", async () => {
    const answered = await call(B);
    await eventsOf("call.received", (p) => p.id === answered);
    await expectJson(await c.sim("POST", `/simnet/calls/${answered}/accept`));
    const [accepted] = await eventsOf("call.accepted", (p) => p.id === answered);
    expect(accepted).toMatchObject({ id: answered, from: { phone: B }, isVideo: false });

    const missed = await call(C);
    await eventsOf("call.received", (p) => p.id === missed);
    await expectJson(await c.sim("POST", `/simnet/calls/${missed}/cancel`));
    const [cancelled] = await eventsOf("call.rejected", (p) => p.id === missed);
    expect(cancelled).toMatchObject({ id: missed, from: { phone: C }, by: "caller", reason: "cancelled" });

    const onPhone = await call(B);
    await eventsOf("call.received", (p) => p.id === onPhone);
    await expectJson(await c.sim("POST", `/simnet/calls/${onPhone}/reject`));
    const [byPhone] = await eventsOf("call.rejected", (p) => p.id === onPhone);
    expect(byPhone).toMatchObject({ by: "phone", reason: "rejected", from: { phone: B } });

    const unanswered = await call(C);
    await eventsOf("call.received", (p) => p.id === unanswered);
    await expectJson(await c.sim("POST", `/simnet/calls/${unanswered}/miss`));
    const [gaveUp] = await eventsOf("call.rejected", (p) => p.id === unanswered);
    expect(gaveUp).toMatchObject({ by: "caller", reason: "missed" });
  });

  it("unknown and malformed call ids; a caller given explicitly must be a number or id", async () => {
    await expectError(await api("/calls/ABCDEF0123456789/reject", { method: "POST" }), 404, "not_found");
    const bad = await expectError(await api("/calls/no%20spaces/reject", { method: "POST" }), 422, "validation_error");
    expect(bad.error.details).toHaveProperty("callId");
    const from = await expectError(
      await api("/calls/ABCDEF0123456789/reject", { method: "POST", json: { from: "not a number" } }),
      422,
      "validation_error",
    );
    expect(from.error.details).toHaveProperty("from");
  });
});

describe("the calls app", () => {
  it("rejects every call at once and answers the caller with its text; disabled, calls ring again", async () => {
    const app = await expectJson<{ id: string }>(
      await api("/apps", { method: "POST", json: { app: "calls", config: { message: "Não atendemos ligações." } } }),
      201,
    );
    const id = await call(C);
    const [rejected] = await eventsOf("call.rejected", (p) => p.id === id);
    expect(rejected).toMatchObject({ id, by: "auto", reason: "rejected", from: { phone: C } });
    const kinds = (await c.events(a.id)).filter((e) => (e.payload as { id?: string }).id === id).map((e) => e.event);
    expect(kinds).toEqual(["call.received", "call.rejected"]);
    expect(await callState(id)).toBe("rejected");
    await expect
      .poll(async () => {
        const inbox = await expectJson<{ messages: { message: { text?: string } }[] }>(
          await c.sim("GET", `/simnet/phones/${C}/inbox`),
        );
        return inbox.messages.map((m) => m.message.text);
      })
      .toContain("Não atendemos ligações.");

    await expectJson(await api(`/apps/${app.id}`, { method: "PATCH", json: { enabled: false } }));
    const rings = await call(B);
    await eventsOf("call.received", (p) => p.id === rings);
    // Nothing rejects it: it is still ringing after the event (the app would have acted first).
    await new Promise((r) => setTimeout(r, 300));
    expect(await callState(rings)).toBe("ringing");
    await expectJson(await api(`/calls/${rings}/reject`, { method: "POST" }));
  });

  it("group calls are left alone when the app says groups: false", async () => {
    const [app] = await expectJson<{ id: string; app: string }[]>(await api("/apps"));
    await expectJson(
      await api(`/apps/${app!.id}`, { method: "PATCH", json: { enabled: true, config: { groups: false } } }),
    );
    const res = await c.sim("POST", `/simnet/phones/${B}/call`, { to: a.phone, groupId: "120363000000000777@g.us" });
    const { id } = await expectJson<{ id: string }>(res, 201);
    const [received] = await eventsOf("call.received", (p) => p.id === id);
    expect(received).toMatchObject({ isGroup: true, chatId: "120363000000000777@g.us" });
    await new Promise((r) => setTimeout(r, 300));
    expect(await callState(id)).toBe("ringing");
  });
});

describe("official-gateway instances", () => {
  it("answer 501 not_supported_by_provider, and refuse the calls app", async () => {
    const o = await c.createInstance({ kind: "official", provider: undefined });
    const res = await c.as(o.token)(`/v1/instances/${o.id}/calls/ABCDEF0123456789/reject`, { method: "POST" });
    await expectError(res, 501, "not_supported_by_provider");
    const app = await c.as(o.token)(`/v1/instances/${o.id}/apps`, { method: "POST", json: { app: "calls" } });
    expect((await expectError(app, 422, "validation_error")).error.details).toHaveProperty("app");
  });
});
