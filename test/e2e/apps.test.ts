// Apps (integrations, spec 2.10) end to end: records with per-app config validation, one app of
// each behavioural kind, enable/disable, and the phone-number apps applied to the numbers of sends
// (immediate and queued) as simnet receives them — real HTTP, Redis, Temporal, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962240001" };
const BR = "5531962240002"; // a Brazilian mobile registered with the ninth digit
const BR_OLD = "553162240003"; // one registered without it (an older account)
const MX = "5215512345678"; // Mexico: the network's form, 52 1 + ten digits
const AR = "5491123456789"; // Argentina: 54 9 + area 11 + number

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);

type App = { id: string; app: string; config: Record<string, unknown>; enabled: boolean; webhookUrl?: string };
const createApp = async (body: Record<string, unknown>) =>
  expectJson<App>(await api("/apps", { method: "POST", json: body }), 201);

async function received(phone: string, text: string) {
  await expect
    .poll(
      async () => {
        const res = await c.sim("GET", `/simnet/phones/${phone}/inbox`);
        const inbox = await expectJson<{ messages: { message: { text?: string } }[] }>(res);
        return inbox.messages.map((m) => m.message.text);
      },
      { timeout: 15_000 },
    )
    .toContain(text);
}

beforeAll(async () => {
  c = await startCluster({ worker: { retryScheduleMs: [1_000] } });
  for (const phone of [BR, BR_OLD, MX, AR]) await c.sim("POST", "/simnet/phones", { phone });
  Object.assign(a, await c.createInstance());
  await api("/start", { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

describe("app records", () => {
  it("create with defaults filled per app, read, list oldest first, change, disable, delete", async () => {
    const mcp = await createApp({ app: "mcp" });
    expect(mcp).toMatchObject({ app: "mcp", config: {}, enabled: true });
    expect(mcp.id).toMatch(/^app_[0-9a-z]+$/);
    const desk = await createApp({
      app: "helpdesk",
      config: { url: "https://desk.example.com/", accountId: 3, inboxId: "7", token: "secret-token" },
      enabled: false,
    });
    // Ids as numbers, defaults filled, the token never shown; the hook URL carries the app's own secret.
    expect(desk).toMatchObject({
      enabled: false,
      config: { url: "https://desk.example.com/", accountId: 3, inboxId: 7, signAgentName: true, ignoreChats: [] },
    });
    expect(JSON.stringify(desk)).not.toContain("secret-token");
    expect(desk.webhookUrl).toMatch(/^http:\/\/[^/]+\/v1\/helpdesk\/hooks\/[0-9a-z]{32}$/);
    expect((await expectJson<App[]>(await api("/apps"))).map((x) => x.id)).toEqual([mcp.id, desk.id]);
    expect(await expectJson(await api(`/apps/${desk.id}`))).toEqual(expect.objectContaining({ id: desk.id }));
    const changed = await expectJson<App>(
      await api(`/apps/${desk.id}`, {
        method: "PATCH",
        json: { enabled: true, config: { url: "https://d.example.com", accountId: 3, inboxId: 8 } },
      }),
    );
    // A config without a token keeps the one kept; the hook URL stays the same.
    expect(changed).toMatchObject({ enabled: true, config: { url: "https://d.example.com", inboxId: 8 } });
    expect(changed.webhookUrl).toBe(desk.webhookUrl);
    expect(await expectJson(await api(`/apps/${mcp.id}`, { method: "DELETE" }))).toEqual({ success: true });
    await expectError(await api(`/apps/${mcp.id}`), 404, "not_found");
    await expectError(await api(`/apps/${mcp.id}`, { method: "PATCH", json: { enabled: false } }), 404, "not_found");
    await expectError(await api("/apps/not-an-app-id"), 404, "not_found");
    await api(`/apps/${desk.id}`, { method: "DELETE" });
  });

  it("validates the app kind and each app's config; one app of each behavioural kind", async () => {
    const kind = await expectError(
      await api("/apps", { method: "POST", json: { app: "nope" } }),
      422,
      "validation_error",
    );
    expect(kind.error.details).toHaveProperty("app");
    const pn = await expectError(
      await api("/apps", { method: "POST", json: { app: "phone-numbers", config: { defaultCountryCode: "+55" } } }),
      422,
      "validation_error",
    );
    expect(pn.error.details).toHaveProperty(["config.defaultCountryCode"]);
    const desk = await expectError(
      await api("/apps", { method: "POST", json: { app: "helpdesk", config: { url: "ftp://x" } } }),
      422,
      "validation_error",
    );
    expect(desk.error.details).toHaveProperty(["config.url"]);
    const calls = await createApp({ app: "calls", config: { message: "Ligue depois." } });
    expect(calls.config).toEqual({ reject: true, groups: true, message: "Ligue depois." });
    const twice = await expectError(
      await api("/apps", { method: "POST", json: { app: "calls" } }),
      422,
      "validation_error",
    );
    expect(twice.error.details?.app).toMatch(/PATCH/);
    const bad = await expectError(
      await api(`/apps/${calls.id}`, { method: "PATCH", json: { config: { reject: "yes" } } }),
      422,
      "validation_error",
    );
    expect(bad.error.details).toHaveProperty(["config.reject"]);
    await api(`/apps/${calls.id}`, { method: "DELETE" });
  });
});

describe("phone-number apps on sends", () => {
  const send = (chatId: string, text: string, headers: Record<string, string> = {}) =>
    api("/messages/text", { method: "POST", json: { chatId, text }, headers });

  it("phone-numbers: a national number gets the default country code (its trunk 0 dropped)", async () => {
    const app = await createApp({ app: "phone-numbers", config: { defaultCountryCode: "55" } });
    const sent = await expectJson<{ chatId: string }>(await send("031962240002", "nacional"), 201);
    expect(sent.chatId).toBe(`${BR}@c.us`);
    await received(BR, "nacional");
    // Queued: the item shows the number as it will be sent.
    const queued = await expectJson<{ id: string; chatId: string }>(
      await send("31962240002", "na fila", { "X-Queue": "true" }),
      202,
    );
    expect(queued.chatId).toBe(`${BR}@c.us`);
    await received(BR, "na fila");
    await api(`/apps/${app.id}`, { method: "DELETE" });
  });

  it("brazilian-phone-numbers remove: the ninth digit dropped without asking the network", async () => {
    const app = await createApp({ app: "brazilian-phone-numbers", config: { ninthDigit: "remove" } });
    const sent = await expectJson<{ chatId: string }>(await send("5531962240003", "sem nono"), 201);
    expect(sent.chatId).toBe(`${BR_OLD}@c.us`);
    await received(BR_OLD, "sem nono");
    // Disabled, the default rule (ask the network) applies again, and finds the same account.
    await expectJson(await api(`/apps/${app.id}`, { method: "PATCH", json: { enabled: false } }));
    await expectJson(await send("5531962240003", "automático"), 201);
    await received(BR_OLD, "automático");
    await api(`/apps/${app.id}`, { method: "DELETE" });
  });

  it("mexican-phone-numbers adds the network's 1; argentine-phone-numbers adds the 9 and drops a typed 15", async () => {
    const mx = await createApp({ app: "mexican-phone-numbers" });
    const ar = await createApp({ app: "argentine-phone-numbers" });
    expect((await expectJson<{ chatId: string }>(await send("525512345678", "hola MX"), 201)).chatId).toBe(
      `${MX}@c.us`,
    );
    await received(MX, "hola MX");
    expect((await expectJson<{ chatId: string }>(await send("54111523456789", "hola AR"), 201)).chatId).toBe(
      `${AR}@c.us`,
    );
    await received(AR, "hola AR");
    // Other chats (groups, ids) are left alone.
    const group = await send("120363000000000001@g.us", "grupo");
    expect(group.status).not.toBe(201); // no such group: refused by the network, not rewritten
    await api(`/apps/${mx.id}`, { method: "DELETE" });
    await api(`/apps/${ar.id}`, { method: "DELETE" });
  });
});

describe("official-gateway instances", () => {
  it("keep app records too, but have no calls to reject", async () => {
    const o = await c.createInstance({ kind: "official", provider: undefined });
    const oapi = c.as(o.token);
    const res = await oapi(`/v1/instances/${o.id}/apps`, { method: "POST", json: { app: "mcp" } });
    expect((await expectJson<App>(res, 201)).app).toBe("mcp");
    await expectError(
      await oapi(`/v1/instances/${o.id}/apps`, { method: "POST", json: { app: "calls" } }),
      422,
      "validation_error",
    );
  });
});
