// LID mappings end to end (spec 4.14 `/lids`): what the instance learns about privacy ids on
// simnet (number checks, a contact that reveals its number) listed, paged, counted and looked up
// by lid and by number, answered from the store while the instance is disconnected — real HTTP,
// Redis, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962240001" };
const KNOWN = ["5531962240002", "5531962240003", "5531962240004"];
const H = "5531962240005"; // hides its number until it reveals it

type Mapping = { lid: string; pn: string };
const api = (path: string) => c.as(a.token)(`/v1/instances/${a.id}${path}`);
const lidOf = async (phone: string) =>
  ((await expectJson(await c.sim("GET", `/simnet/phones/${phone}`))) as { lid: string }).lid;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lids: Record<string, string> = {};

beforeAll(async () => {
  c = await startCluster();
  for (const phone of KNOWN) await c.sim("POST", "/simnet/phones", { phone });
  await c.sim("POST", "/simnet/phones", { phone: H, pushName: "Oculto", hidePhone: true });
  for (const phone of [...KNOWN, H]) lids[phone] = await lidOf(phone);
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

describe("learning", () => {
  it("a number check reveals a number's lid; a contact that hides its number is learnt once it reveals it", async () => {
    const before = (await expectJson<{ count: number }>(await api("/lids/count"))).count;
    for (const phone of KNOWN) {
      const found = await expectJson<{ lid: string }>(await api(`/contacts/check-exists?phone=${phone}`));
      expect(found.lid).toBe(lids[phone]);
    }
    expect((await expectJson<{ count: number }>(await api("/lids/count"))).count).toBe(before + KNOWN.length);
    // Hidden: its messages come by lid, nothing to learn.
    await c.sim("POST", `/simnet/phones/${H}/send`, { to: a.phone, message: { type: "text", text: "quem sou?" } });
    await until("the hidden contact's message", async () => {
      const events = await c.events(a.id, "message");
      return events.some((e) => (e.payload as { chatId: string }).chatId === lids[H]) ? true : undefined;
    });
    await expectError(await api(`/lids/${lids[H]}`), 404, "not_found");
    await expectError(await api(`/lids/pn/${H}`), 404, "not_found");
    await c.sim("POST", `/simnet/phones/${H}/reveal`);
    await c.sim("POST", `/simnet/phones/${H}/send`, { to: a.phone, message: { type: "text", text: "sou eu" } });
    const got = await until("the revealed pair", async () => {
      const res = await api(`/lids/${lids[H]}`);
      return res.status === 200 ? ((await res.json()) as Mapping) : undefined;
    });
    expect(got).toEqual({ lid: lids[H], pn: `${H}@c.us` });
  });
});

describe("reading", () => {
  it("the list is ordered by lid and paged; count is its length", async () => {
    const all = await expectJson<Mapping[]>(await api("/lids"));
    expect(all.map((m) => m.lid)).toEqual([...all.map((m) => m.lid)].sort());
    for (const phone of [...KNOWN, H]) expect(all).toContainEqual({ lid: lids[phone], pn: `${phone}@c.us` });
    expect((await expectJson<{ count: number }>(await api("/lids/count"))).count).toBe(all.length);
    expect(await expectJson<Mapping[]>(await api("/lids?limit=2"))).toEqual(all.slice(0, 2));
    expect(await expectJson<Mapping[]>(await api("/lids?limit=2&offset=2"))).toEqual(all.slice(2, 4));
    expect(await expectJson<Mapping[]>(await api(`/lids?offset=${all.length}`))).toEqual([]);
  });

  it("by lid (with or without @lid) and by number (digits, +, @c.us); unknown ones 404", async () => {
    const [phone] = KNOWN;
    const lid = lids[phone!]!;
    const mapping = { lid, pn: `${phone}@c.us` };
    expect(await expectJson(await api(`/lids/${lid}`))).toEqual(mapping);
    expect(await expectJson(await api(`/lids/${lid.replace("@lid", "")}`))).toEqual(mapping);
    for (const form of [phone, `+${phone}`, `${phone}@c.us`]) {
      expect(await expectJson(await api(`/lids/pn/${encodeURIComponent(form!)}`))).toEqual(mapping);
    }
    await expectError(await api("/lids/99999999999999@lid"), 404, "not_found");
    await expectError(await api("/lids/pn/5531962249999"), 404, "not_found");
  });

  it("malformed lids, numbers and pages: 422 with the field named", async () => {
    for (const [path, field] of [
      ["/lids/abc", "lid"],
      ["/lids/12ab@lid", "lid"],
      ["/lids/pn/123", "phone"],
      ["/lids/pn/abc@c.us", "phone"],
      ["/lids?limit=0", "limit"],
      ["/lids?limit=1001", "limit"],
      ["/lids?offset=-1", "offset"],
      ["/lids?limit=dois", "limit"],
    ] as const) {
      const err = await expectError(await api(path), 422, "validation_error");
      expect(err.error.details, path).toHaveProperty(field);
    }
  });

  it("answers while the instance is disconnected (the store, no network)", async () => {
    const before = await expectJson<Mapping[]>(await api("/lids"));
    await expectJson(await c.as(a.token)(`/v1/instances/${a.id}/stop`, { method: "POST" }));
    await c.waitForStatus(a.id, "STOPPED");
    await expectError(await api("/contacts/check-exists?phone=5531962240002"), 422, "instance_not_connected");
    expect(await expectJson<Mapping[]>(await api("/lids"))).toEqual(before);
    expect((await expectJson<{ count: number }>(await api("/lids/count"))).count).toBe(before.length);
    expect(await expectJson(await api(`/lids/pn/${H}`))).toEqual({ lid: lids[H], pn: `${H}@c.us` });
  });

  it("official instances: 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    for (const path of ["/lids", "/lids/count", `/lids/${lids[H]}`, `/lids/pn/${H}`]) {
      await expectError(await c.as(off.token)(`/v1/instances/${off.id}${path}`), 501, "not_supported_by_provider");
    }
  });
});
