// Labels end to end on simnet (spec 4.7, 2.10, events of 6.2; docs/labels.md): every route through
// real HTTP, Redis and the session pod; the changes seen by the phone (simnet's control API) and the
// phone's own changes heard as events, in order, with the spec's field names; the palette kept
// consistent; validation, 404s, a personal account's refusal, storage.labels, the 501 of official
// instances.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { verify } from "@gw/webhook-verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, ROOT } from "../support/e2e-helpers.ts";
import { ADMIN_TOKEN } from "../support/gateway.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

let c: Cluster;
let rx: Receiver;
let secret = "";
const a = { id: "", token: "", phone: "5531963330001" }; // the business instance under test
const p = { id: "", token: "", phone: "5531963330009" }; // a personal account
const B = "5531963330002";
const C = "5531963330003";
const H = "5531963330004"; // hides their number: seen by lid
const NOBODY = "5531963339999"; // no account

type Label = { id: string; name: string; color: number; colorHex: string | null };
type Payload = Record<string, any>;

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const phone = async (method: string, path: string, json?: unknown) => {
  const res = await c.sim(method, `/simnet/phones/${a.phone}${path}`, json);
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Payload;
};

const LABEL_KINDS = ["label.upsert", "label.deleted", "label.chat.added", "label.chat.deleted"];
/** The label events of the instance, oldest first, as `[kind, payload]`. */
async function labelEvents(): Promise<[string, Payload][]> {
  return (await c.events(a.id))
    .filter((e) => LABEL_KINDS.includes(e.event))
    .map((e): [string, Payload] => [e.event, e.payload as Payload]);
}
/** Waits until at least `count` label events follow `from`; answers those. */
async function eventsAfter(from: number, count: number, timeoutMs = 10_000): Promise<[string, Payload][]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const after = (await labelEvents()).slice(from);
    if (after.length >= count) return after;
    if (Date.now() > until) throw new Error(`expected ${count} label events, got ${JSON.stringify(after)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const mark = async () => (await labelEvents()).length;

beforeAll(async () => {
  // Many calls a second: the per-instance rate limit is not what this file tests.
  c = await startCluster({
    worker: { retryScheduleMs: [200] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  rx = await startReceiver();
  for (const ph of [B, C]) await c.sim("POST", "/simnet/phones", { phone: ph });
  await c.sim("POST", "/simnet/phones", { phone: H, hidePhone: true });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  const hook = await expectJson<{ secret: string }>(
    await api("/webhooks", { method: "POST", json: { url: rx.url, events: LABEL_KINDS } }),
    201,
  );
  secret = hook.secret;
  // A personal account: made so before it pairs (as `pnpm sim:pair … --personal` does).
  await expectJson(await c.sim("PUT", `/simnet/phones/${p.phone}/business`, { business: false }));
  Object.assign(p, await c.createInstance());
  await c.as(p.token)(`/v1/instances/${p.id}/start`, { method: "POST" });
  await c.pair(p.id, p.phone);
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
});

let lead: Label; // created with color
let vip: Label; // created with colorHex
let auto: Label; // created without a color

describe("the account's labels", () => {
  it("a new business account has the network's five predefined labels, with their hex colors", async () => {
    const list = await expectJson<Label[]>(await api("/labels"));
    expect(list.map((l) => l.id)).toEqual(["1", "2", "3", "4", "5"]);
    expect(list[0]).toEqual({ id: "1", name: "Novo cliente", color: 0, colorHex: "#ff9485" });
    for (const l of list) expect(Object.keys(l).sort()).toEqual(["color", "colorHex", "id", "name"]);
  });

  it("creates labels by color, by colorHex, by both, or by neither (the first free color); each is label.upsert", async () => {
    const from = await mark();
    lead = await expectJson<Label>(await api("/labels", { method: "POST", json: { name: " Lead ", color: 13 } }), 201);
    expect(lead).toEqual({ id: "6", name: "Lead", color: 13, colorHex: "#f74848" });
    vip = await expectJson<Label>(
      await api("/labels", { method: "POST", json: { name: "VIP", colorHex: "64C4FF" } }),
      201,
    );
    expect(vip).toEqual({ id: "7", name: "VIP", color: 1, colorHex: "#64c4ff" });
    const both = await expectJson<Label>(
      await api("/labels", { method: "POST", json: { name: "Ambos", color: 19, colorHex: "#9368cf" } }),
      201,
    );
    expect(both).toMatchObject({ id: "8", color: 19, colorHex: "#9368cf" });
    // The predefined ones use 0–4, VIP 1: the first free palette color is 5.
    auto = await expectJson<Label>(await api("/labels", { method: "POST", json: { name: "Sem cor" } }), 201);
    expect(auto).toEqual({ id: "9", name: "Sem cor", color: 5, colorHex: "#55ccb3" });

    const events = await eventsAfter(from, 4);
    expect(events.map(([k, e]) => [k, e.id, e.name, e.color, e.colorHex])).toEqual([
      ["label.upsert", "6", "Lead", 13, "#f74848"],
      ["label.upsert", "7", "VIP", 1, "#64c4ff"],
      ["label.upsert", "8", "Ambos", 19, "#9368cf"],
      ["label.upsert", "9", "Sem cor", 5, "#55ccb3"],
    ]);
    expect(events[0]![1].timestamp).toBeTypeOf("number");
    // The phone has them too.
    const seen = await phone("GET", "/labels");
    expect(seen.labels.map((l: Label) => l.name)).toEqual(expect.arrayContaining(["Lead", "VIP", "Ambos", "Sem cor"]));
  });

  it("validates the body: name required, color 0–19, colorHex of the palette, both consistent", async () => {
    const bad = async (json: unknown, field: string) => {
      const body = await expectError(await api("/labels", { method: "POST", json }), 422, "validation_error");
      expect(body.error.details, JSON.stringify(body)).toHaveProperty(field);
    };
    await bad({}, "name");
    await bad({ name: "   " }, "name");
    await bad({ name: "x".repeat(101) }, "name");
    await bad({ name: "x", color: 20 }, "color");
    await bad({ name: "x", color: 1.5 }, "color");
    await bad({ name: "x", color: "1" }, "color");
    await bad({ name: "x", colorHex: "red" }, "colorHex");
    await bad({ name: "x", colorHex: "#123456" }, "colorHex");
    await bad({ name: "x", color: 2, colorHex: "#ff9485" }, "colorHex");
    const put = await expectError(
      await api(`/labels/${lead.id}`, { method: "PUT", json: { color: 3 } }),
      422,
      "validation_error",
    );
    expect(put.error.details).toHaveProperty("name");
    const badId = await expectError(
      await api("/labels/a%20b", { method: "PUT", json: { name: "x" } }),
      422,
      "validation_error",
    );
    expect(badId.error.details).toHaveProperty("labelId");
  });

  it("renames and recolors (the color kept when not sent); label.upsert each; unknown labels are 404", async () => {
    const from = await mark();
    const renamed = await expectJson<Label>(
      await api(`/labels/${lead.id}`, { method: "PUT", json: { name: "Lead quente" } }),
    );
    expect(renamed).toEqual({ ...lead, name: "Lead quente" });
    const recolored = await expectJson<Label>(
      await api(`/labels/${lead.id}`, { method: "PUT", json: { name: "Lead quente", colorHex: "#00a0f2" } }),
    );
    expect(recolored).toEqual({ id: lead.id, name: "Lead quente", color: 14, colorHex: "#00a0f2" });
    lead = recolored;
    const events = await eventsAfter(from, 2);
    expect(events.map(([k, e]) => [k, e.id, e.name, e.color])).toEqual([
      ["label.upsert", lead.id, "Lead quente", 13],
      ["label.upsert", lead.id, "Lead quente", 14],
    ]);
    const gone = await expectError(await api("/labels/999", { method: "PUT", json: { name: "x" } }), 404, "not_found");
    expect(gone.error.details).toHaveProperty("labelId");
  });
});

describe("chats and their labels", () => {
  it("PUT sets a chat's whole set (adds the missing, removes the others); GETs read it both ways", async () => {
    const from = await mark();
    const first = await expectJson<{ success: boolean; labels: Label[] }>(
      await api(`/labels/chats/${B}`, { method: "PUT", json: { labels: [{ id: lead.id }, { id: vip.id }] } }),
    );
    expect(first).toEqual({ success: true, labels: [lead, vip] });
    expect(await expectJson(await api(`/labels/chats/${B}@c.us`))).toEqual([lead, vip]);
    expect(await expectJson(await api(`/labels/${lead.id}/chats`))).toEqual([{ id: `${B}@c.us` }]);

    // The whole set: VIP stays, Lead goes, "Sem cor" comes (added first, then removed).
    const second = await expectJson<{ labels: Label[] }>(
      await api(`/labels/chats/${B}@c.us`, { method: "PUT", json: { labels: [{ id: vip.id }, { id: auto.id }] } }),
    );
    expect(second.labels).toEqual([vip, auto]);
    expect(await expectJson(await api(`/labels/${lead.id}/chats`))).toEqual([]);

    const events = await eventsAfter(from, 4);
    expect(events.map(([k, e]) => [k, e.labelId, e.chatId])).toEqual([
      ["label.chat.added", lead.id, `${B}@c.us`],
      ["label.chat.added", vip.id, `${B}@c.us`],
      ["label.chat.added", auto.id, `${B}@c.us`],
      ["label.chat.deleted", lead.id, `${B}@c.us`],
    ]);
    const [, added] = events[0]!;
    expect(added).toMatchObject({ chatLid: null, label: lead });
    expect(added.timestamp).toBeTypeOf("number");
    // The phone sees the chat tagged.
    const seen = await phone("GET", "/labels");
    const onPhone = seen.labels.find((l: Payload) => l.id === vip.id);
    expect(onPhone.chats).toEqual([`${B}@c.us`]);
  });

  it("groups and hidden numbers can be labeled; an empty set removes every label", async () => {
    const group = await expectJson<{ id: string }>(
      await c.sim("POST", "/simnet/groups", { subject: "Clientes", participants: [a.phone, B] }),
      201,
    );
    await expectJson(await api(`/labels/chats/${group.id}`, { method: "PUT", json: { labels: [{ id: lead.id }] } }));
    expect(await expectJson(await api(`/labels/chats/${group.id}`))).toEqual([lead]);

    const hidden = await expectJson<{ lid: string }>(await c.sim("GET", `/simnet/phones/${H}`));
    const from = await mark();
    await expectJson(await api(`/labels/chats/${hidden.lid}`, { method: "PUT", json: { labels: [{ id: lead.id }] } }));
    const [[kind, e]] = (await eventsAfter(from, 1)) as [[string, Payload]];
    expect([kind, e.chatId, e.chatLid]).toEqual(["label.chat.added", hidden.lid, hidden.lid]);
    expect(await expectJson(await api(`/labels/${lead.id}/chats`))).toEqual([{ id: group.id }, { id: hidden.lid }]);

    await expectJson(await api(`/labels/chats/${group.id}`, { method: "PUT", json: { labels: [] } }));
    expect(await expectJson(await api(`/labels/chats/${group.id}`))).toEqual([]);
  });

  it("unknown chats and labels are 404; malformed ones 422", async () => {
    const noChat = await expectError(await api(`/labels/chats/${NOBODY}`), 404, "not_found");
    expect(noChat.error.details).toHaveProperty("chatId");
    await expectError(
      await api(`/labels/chats/${NOBODY}`, { method: "PUT", json: { labels: [{ id: vip.id }] } }),
      404,
      "not_found",
    );
    await expectError(await api("/labels/chats/120363000000000001@g.us"), 404, "not_found");
    const noLabel = await expectError(
      await api(`/labels/chats/${C}`, { method: "PUT", json: { labels: [{ id: vip.id }, { id: "998" }] } }),
      404,
      "not_found",
    );
    expect(noLabel.error.details?.labels).toContain("998");
    expect(await expectJson(await api(`/labels/chats/${C}`))).toEqual([]); // nothing applied
    await expectError(await api("/labels/998/chats"), 404, "not_found");
    await expectError(await api("/labels/998", { method: "DELETE" }), 404, "not_found");

    for (const bad of ["abc", "123456789012345678901234567890@newsletter", "status@broadcast"]) {
      const res = await expectError(await api(`/labels/chats/${encodeURIComponent(bad)}`), 422, "validation_error");
      expect(res.error.details).toHaveProperty("chatId");
    }
    const noList = await expectError(
      await api(`/labels/chats/${C}`, { method: "PUT", json: {} }),
      422,
      "validation_error",
    );
    expect(noList.error.details).toHaveProperty("labels");
    const noId = await expectError(
      await api(`/labels/chats/${C}`, { method: "PUT", json: { labels: [{}] } }),
      422,
      "validation_error",
    );
    expect(noId.error.details).toHaveProperty("labels.0.id");
  });

  it("deleting a label untags its chats first (label.chat.deleted each), then label.deleted", async () => {
    await expectJson(await api(`/labels/chats/${C}`, { method: "PUT", json: { labels: [{ id: vip.id }] } }));
    const from = await mark();
    expect(await expectJson(await api(`/labels/${vip.id}`, { method: "DELETE" }))).toEqual({});
    const events = await eventsAfter(from, 3);
    expect(events.map(([k, e]) => [k, e.labelId ?? e.id, e.chatId ?? null])).toEqual([
      ["label.chat.deleted", vip.id, `${B}@c.us`],
      ["label.chat.deleted", vip.id, `${C}@c.us`],
      ["label.deleted", vip.id, null],
    ]);
    expect(events[2]![1]).toMatchObject({ id: vip.id, name: "VIP", color: 1, colorHex: "#64c4ff" });
    expect((await expectJson<Label[]>(await api("/labels"))).map((l) => l.id)).not.toContain(vip.id);
    expect(await expectJson(await api(`/labels/chats/${B}`))).toEqual([auto]);
    await expectError(await api(`/labels/${vip.id}/chats`), 404, "not_found");
    // Ids are never reused.
    const next = await expectJson<Label>(await api("/labels", { method: "POST", json: { name: "Depois" } }), 201);
    expect(Number(next.id)).toBeGreaterThan(Number(auto.id));
  });
});

describe("changes made on the phone", () => {
  it("create, edit, tag, untag and delete on the phone arrive as label events, in order", async () => {
    const from = await mark();
    const made = await phone("POST", "/labels", { name: "Do celular", color: 7 });
    await phone("PATCH", `/labels/${made.id}`, { name: "Do celular 2" });
    await phone("PUT", `/labels/${made.id}/chats/${C}`);
    await phone("PUT", `/labels/${made.id}/chats/${C}`); // again: no change, no event
    await phone("DELETE", `/labels/${made.id}/chats/${C}`);
    await phone("PUT", `/labels/${made.id}/chats/${B}`);
    await phone("DELETE", `/labels/${made.id}`);
    const events = await eventsAfter(from, 7);
    expect(events.map(([k, e]) => [k, e.id ?? e.labelId, e.name ?? e.label?.name, e.chatId ?? null])).toEqual([
      ["label.upsert", made.id, "Do celular", null],
      ["label.upsert", made.id, "Do celular 2", null],
      ["label.chat.added", made.id, "Do celular 2", `${C}@c.us`],
      ["label.chat.deleted", made.id, "Do celular 2", `${C}@c.us`],
      ["label.chat.added", made.id, "Do celular 2", `${B}@c.us`],
      ["label.chat.deleted", made.id, "Do celular 2", `${B}@c.us`],
      ["label.deleted", made.id, "Do celular 2", null],
    ]);
    expect(events[0]![1]).toMatchObject({ color: 7, colorHex: "#d3a91d" });
    expect(events[2]![1].label).toMatchObject({ id: made.id, color: 7, colorHex: "#d3a91d" });
    await new Promise((r) => setTimeout(r, 200));
    expect((await labelEvents()).length - from).toBe(7);
  });

  it("the API reads what the phone changed", async () => {
    const made = await phone("POST", "/labels", { name: "Pedido", color: 2 });
    await phone("PUT", `/labels/${made.id}/chats/${C}`);
    expect(await expectJson(await api(`/labels/chats/${C}`))).toEqual([
      { id: made.id, name: "Pedido", color: 2, colorHex: "#ffd429" },
    ]);
    expect(await expectJson(await api(`/labels/${made.id}/chats`))).toEqual([{ id: `${C}@c.us` }]);
  });
});

describe("the instance and the account", () => {
  it("storage.labels off: the read routes answer empty lists; writes still work", async () => {
    await expectJson(await api("/settings", { method: "PATCH", json: { storage: { labels: false } } }));
    try {
      expect(await expectJson(await api("/labels"))).toEqual([]);
      expect(await expectJson(await api(`/labels/chats/${B}`))).toEqual([]);
      expect(await expectJson(await api(`/labels/${auto.id}/chats`))).toEqual([]);
      const made = await expectJson<Label>(
        await api("/labels", { method: "POST", json: { name: "Sem guardar" } }),
        201,
      );
      expect(made.name).toBe("Sem guardar");
    } finally {
      await expectJson(await api("/settings", { method: "PATCH", json: { storage: { labels: true } } }));
    }
    expect((await expectJson<Label[]>(await api("/labels"))).map((l) => l.name)).toContain("Sem guardar");
  });

  it("a personal account: every route answers 422 network_rejected naming the account", async () => {
    const personal = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      c.as(p.token)(`/v1/instances/${p.id}${path}`, init);
    const routes: [string, RequestInit & { json?: unknown }][] = [
      ["/labels", {}],
      ["/labels", { method: "POST", json: { name: "x" } }],
      ["/labels/1", { method: "PUT", json: { name: "x" } }],
      ["/labels/1", { method: "DELETE" }],
      ["/labels/1/chats", {}],
      [`/labels/chats/${B}`, {}],
      [`/labels/chats/${B}`, { method: "PUT", json: { labels: [] } }],
    ];
    for (const [path, init] of routes) {
      const body = await expectError(await personal(path, init), 422, "network_rejected");
      expect(body.error.message).toMatch(/Business/);
      expect(body.error.details).toHaveProperty("account");
    }
  });

  it("pnpm sim:pair pairs a business account, or a personal one with --personal", async () => {
    const pairWithScript = async (phoneNumber: string, extra: string[] = []) => {
      const inst = await c.createInstance();
      await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
      await c.waitForStatus(inst.id, "SCAN_QR_CODE");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["scripts/sim-pair.mjs", inst.id, phoneNumber, ...extra],
        { cwd: ROOT, env: { ...process.env, SIMNET_URL: c.simnetUrl, ADMIN_TOKEN } },
      );
      await c.waitForStatus(inst.id, "WORKING");
      return { ...inst, stdout };
    };
    const personal = await pairWithScript("5531963330011", ["--personal"]);
    expect(personal.stdout).toMatch(/personal account/);
    await expectError(await c.as(personal.token)(`/v1/instances/${personal.id}/labels`), 422, "network_rejected");
    // A phone made personal before is a business account again when paired without the flag.
    await expectJson(await c.sim("PUT", "/simnet/phones/5531963330012/business", { business: false }));
    const business = await pairWithScript("5531963330012");
    expect(business.stdout).toMatch(/business account/);
    expect((await expectJson<Label[]>(await c.as(business.token)(`/v1/instances/${business.id}/labels`))).length).toBe(
      5,
    );
  });

  it("instance_not_connected unless WORKING", async () => {
    const idle = await c.createInstance();
    const body = await expectError(
      await c.as(idle.token)(`/v1/instances/${idle.id}/labels`),
      422,
      "instance_not_connected",
    );
    expect(body.error.details).toHaveProperty("connectionStatus");
    await expectError(
      await c.as(idle.token)(`/v1/instances/${idle.id}/labels`, { method: "POST", json: { name: "x" } }),
      422,
      "instance_not_connected",
    );
  });

  it("official instances: every route answers 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    const asOff = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      c.as(off.token)(`/v1/instances/${off.id}${path}`, init);
    await expectError(await asOff("/labels"), 501, "not_supported_by_provider");
    await expectError(
      await asOff("/labels", { method: "POST", json: { name: "x" } }),
      501,
      "not_supported_by_provider",
    );
    await expectError(await asOff("/labels/1", { method: "PUT", json: {} }), 501, "not_supported_by_provider");
    await expectError(await asOff("/labels/1", { method: "DELETE" }), 501, "not_supported_by_provider");
    await expectError(await asOff("/labels/1/chats"), 501, "not_supported_by_provider");
    await expectError(await asOff(`/labels/chats/${B}`), 501, "not_supported_by_provider");
    await expectError(
      await asOff(`/labels/chats/${B}`, { method: "PUT", json: { labels: [] } }),
      501,
      "not_supported_by_provider",
    );
  });
});

describe("webhooks", () => {
  it("every label event reached the webhook signed, as the instance published it", async () => {
    const published = (await c.events(a.id)).filter((e) => LABEL_KINDS.includes(e.event));
    expect(published.length).toBeGreaterThan(20);
    const got = await rx.waitFor((all) => published.every((e) => all.some((r) => r.envelope.id === e.id)), 20_000);
    for (const e of published) {
      const r = got.find((x) => x.envelope.id === e.id)!;
      expect(verify({ secret, header: String(r.headers["x-service-signature"]), rawBody: r.rawBody })).toMatchObject({
        ok: true,
      });
      expect(r.headers["x-service-event"]).toBe(e.event);
      expect(r.envelope).toEqual(e);
    }
    // Only the kinds subscribed to.
    expect(got.every((r) => LABEL_KINDS.includes(r.envelope.event))).toBe(true);
  });
});
