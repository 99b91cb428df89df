// Contacts end to end on simnet: the address book synced from the phone (list, paging, search,
// count, live changes), a person by number / ninth digit / lid, pictures and about texts, blocks in
// both directions (what reaches whom, the queue's failure), storage.contacts, the number check,
// not connected and the 501 of official instances — real HTTP, Redis, Temporal, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531964440001" }; // the instance under test
const B = "5531964440002"; // saved as "Bruno"
const C = "5531964440003"; // saved as "Ana Carla"
const D = "5531964440004"; // not saved at first
const E = "5531964440005"; // hides its number
const OLD = "553184440006"; // registered without the ninth digit
const NOBODY = "5531964449999";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

type Contact = {
  id: string;
  phone: string;
  lid: string | null;
  pushName: string;
  name: string | null;
  blocked: boolean;
  picture: string;
};

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const sim = async (method: string, path: string, json?: unknown) => {
  const res = await c.sim(method, path, json);
  return expectJson(res, res.status === 201 ? 201 : 200);
};

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const list = async (query = "") => expectJson<Contact[]>(await api(`/contacts${query}`));
const names = (l: Contact[]) => l.map((x) => x.name);

beforeAll(async () => {
  // Many calls on one instance in a few seconds: the per-instance rate limit is not what these tests check.
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [100] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  await c.sim("POST", "/simnet/phones", { phone: a.phone, pushName: "Loja" });
  for (const [phone, pushName] of [
    [B, "Bruno S."],
    [C, "Carla"],
    [D, "Diego"],
    [OLD, "Antigo"],
  ] as const) {
    await c.sim("POST", "/simnet/phones", { phone, pushName });
  }
  await c.sim("POST", "/simnet/phones", { phone: E, pushName: "Sigilo", hidePhone: true });
  // Saved on the phone before the instance is linked: the whole book arrives when it opens.
  await sim("PUT", `/simnet/phones/${a.phone}/contacts/${B}`, { name: "Bruno" });
  await sim("PUT", `/simnet/phones/${a.phone}/contacts/${C}`, { name: "Ana Carla" });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
}, 120_000);
afterAll(() => c?.close());

describe("the address book", () => {
  it("arrives when the device opens: saved contacts only, by name, with the person's fields", async () => {
    const l = await until(
      "address book",
      () => list(),
      (v) => v.length === 2,
    );
    expect(names(l)).toEqual(["Ana Carla", "Bruno"]);
    expect(l[1]).toMatchObject({
      id: `${B}@c.us`,
      phone: B,
      pushName: "Bruno S.",
      name: "Bruno",
      blocked: false,
    });
    expect(l[1]!.lid).toMatch(/@lid$/);
    expect(l[1]!.picture).toMatch(new RegExp(`/v1/avatars/${a.id}/${B}@c\\.us\\.jpg\\?exp=\\d+&sig=`));
    expect(await expectJson(await api("/contacts/count"))).toEqual({ count: 2 });
  });

  it("follows the phone: a contact saved, renamed and removed", async () => {
    await sim("PUT", `/simnet/phones/${a.phone}/contacts/${D}`, { name: "Diego" });
    await sim("PUT", `/simnet/phones/${a.phone}/contacts/${B}`, { name: "Bruno Souza" });
    await until(
      "saved and renamed",
      () => list(),
      (v) => names(v).join() === "Ana Carla,Bruno Souza,Diego",
    );
    await sim("DELETE", `/simnet/phones/${a.phone}/contacts/${C}`);
    await until(
      "removed",
      () => list(),
      (v) => names(v).join() === "Bruno Souza,Diego",
    );
    await sim("PUT", `/simnet/phones/${a.phone}/contacts/${C}`, { name: "Ana Carla" });
    await until(
      "saved again",
      () => list(),
      (v) => v.length === 3,
    );
  });

  it("pages, sorts and searches; validates the query", async () => {
    expect(names(await list("?limit=1&offset=1"))).toEqual(["Bruno Souza"]);
    expect(names(await list("?sortOrder=desc"))).toEqual(["Diego", "Bruno Souza", "Ana Carla"]);
    expect((await list("?sortBy=id")).map((x) => x.phone)).toEqual([B, C, D]);
    expect(names(await list("?search=CARLA"))).toEqual(["Ana Carla"]);
    expect(names(await list("?search=diégo"))).toEqual(["Diego"]); // accents ignored
    expect(names(await list(`?search=${D.slice(-4)}`))).toEqual(["Diego"]);
    expect(names(await list("?search=S."))).toEqual(["Bruno Souza"]); // the profile name too
    for (const [q, field] of [
      ["?limit=0", "limit"],
      ["?limit=501", "limit"],
      ["?offset=-1", "offset"],
      ["?sortBy=phone", "sortBy"],
      ["?sortOrder=up", "sortOrder"],
    ]) {
      const err = await expectError(await api(`/contacts${q}`), 422, "validation_error");
      expect(err.error.details, q).toHaveProperty(field!);
    }
  });
});

describe("one contact", () => {
  it("by number, @c.us or lid; people not saved too; the ninth digit resolved; 404 without an account", async () => {
    const byNumber = await expectJson<Contact>(await api(`/contacts/+55 31 96444-0002`));
    expect(byNumber).toMatchObject({ id: `${B}@c.us`, phone: B, name: "Bruno Souza", pushName: "Bruno S." });
    expect(await expectJson(await api(`/contacts/${B}@c.us`))).toEqual(byNumber);
    expect(await expectJson(await api(`/contacts/${byNumber.lid}`))).toEqual(byNumber);
    const old = await expectJson<Contact>(await api(`/contacts/5531984440006`));
    expect(old).toMatchObject({ id: `${OLD}@c.us`, phone: OLD, name: null, pushName: "Antigo", blocked: false });
    // Someone who hides their number is shown by lid, phone empty.
    const hidden = (await c.sim("GET", `/simnet/phones/${E}`).then((r) => r.json())) as { lid: string };
    expect(await expectJson(await api(`/contacts/${hidden.lid}`))).toMatchObject({
      id: hidden.lid,
      phone: "",
      lid: hidden.lid,
      pushName: "Sigilo",
      name: null,
    });
    await expectError(await api(`/contacts/${NOBODY}`), 404, "not_found");
    await expectError(await api("/contacts/999999999999999@lid"), 404, "not_found");
    for (const bad of ["abc", "120363000000000001@g.us", "123"]) {
      const err = await expectError(await api(`/contacts/${encodeURIComponent(bad)}`), 422, "validation_error");
      expect(err.error.details, bad).toHaveProperty("contactId");
    }
  });

  it("picture: a signed link to the bytes, cached a day (refresh asks again); 404 when none", async () => {
    await sim("PUT", `/simnet/phones/${B}/picture`, {
      picture: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    const { url } = await expectJson<{ url: string }>(await api(`/contacts/${B}/picture`));
    expect(url).toMatch(new RegExp(`/v1/avatars/${a.id}/${B}@c\\.us\\.jpg\\?exp=\\d+&sig=`));
    const link = new URL(url);
    const img = await c.request(link.pathname + link.search);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);
    await expectError(await api(`/contacts/${D}/picture`), 404, "not_found");
    // Cached "none" for a day; refresh asks the network.
    await sim("PUT", `/simnet/phones/${D}/picture`, {
      picture: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    await expectError(await api(`/contacts/${D}/picture`), 404, "not_found");
    await expectJson(await api(`/contacts/${D}/picture?refresh=true`));
    await expectError(await api(`/contacts/${NOBODY}/picture`), 404, "not_found");
    await expectError(await api(`/contacts/${D}/picture?refresh=maybe`), 422, "validation_error");
  });

  it("about: the text and when it was set; null when none", async () => {
    await sim("PUT", `/simnet/phones/${B}/about`, { about: "No trabalho 🛠️" });
    const about = await expectJson<{ id: string; about: string; setAt: number }>(await api(`/contacts/${B}/about`));
    expect(about).toMatchObject({ id: `${B}@c.us`, about: "No trabalho 🛠️" });
    expect(Math.abs(about.setAt - Date.now() / 1000)).toBeLessThan(60);
    expect(await expectJson(await api(`/contacts/${C}/about`))).toEqual({ id: `${C}@c.us`, about: null, setAt: null });
    await expectError(await api(`/contacts/${NOBODY}/about`), 404, "not_found");
  });
});

describe("blocks", () => {
  it("block: in the blocklist, the book and the contact; their messages stop reaching us", async () => {
    expect(await expectJson(await api(`/contacts/${B}/block`, { method: "POST" }))).toEqual({ success: true });
    expect(await expectJson(await api(`/contacts/${B}/block`, { method: "POST" }))).toEqual({ success: true });
    const blocked = await expectJson<Contact[]>(await api("/contacts/blocklist"));
    expect(blocked).toEqual([expect.objectContaining({ id: `${B}@c.us`, name: "Bruno Souza", blocked: true })]);
    expect((await expectJson<Contact>(await api(`/contacts/${B}`))).blocked).toBe(true);
    await until(
      "the book says blocked",
      () => list(),
      (l) => l.find((x) => x.phone === B)?.blocked === true,
    );
    expect(await sim("GET", `/simnet/phones/${a.phone}/blocks`)).toEqual({ blocked: [`${B}@c.us`] });

    // B writes: accepted by the network, never delivered (one tick).
    const sent = await sim("POST", `/simnet/phones/${B}/send`, { to: a.phone, message: { type: "text", text: "oi?" } });
    const inbox = (await sim("GET", `/simnet/phones/${a.phone}/inbox`)) as { messages: { id: string }[] };
    expect(inbox.messages.map((m) => m.id)).not.toContain(sent.id);
    const mine = (await sim("GET", `/simnet/phones/${B}/sent`)) as { messages: Record<string, any>[] };
    expect(mine.messages.find((m) => m.id === sent.id)).toMatchObject({ status: "sent", receipts: {} });
  });

  it("we cannot write to someone we blocked: 422 now, queue.failed through the queue", async () => {
    const err = await expectError(
      await api("/messages/text", { method: "POST", json: { phone: B, text: "oi" } }),
      422,
      "network_rejected",
    );
    expect(err.error.message).toMatch(/bloqueou/);
    const queued = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: B, text: "pela fila", delayMessage: 0 } }),
      202,
    );
    const failed = await until(
      "queue.failed",
      async () => (await c.events(a.id, "queue.failed")).map((e) => e.payload as Record<string, any>),
      (l) => l.some((p) => JSON.stringify(p).includes(queued.id)),
      30_000,
    );
    expect(JSON.stringify(failed)).toMatch(/network_rejected/);
  });

  it("unblock: their next message arrives; what they sent while blocked never does", async () => {
    expect(await expectJson(await api(`/contacts/${B}/unblock`, { method: "POST" }))).toEqual({ success: true });
    expect(await expectJson(await api(`/contacts/${B}/unblock`, { method: "POST" }))).toEqual({ success: true });
    expect(await expectJson(await api("/contacts/blocklist"))).toEqual([]);
    const sent = await sim("POST", `/simnet/phones/${B}/send`, {
      to: a.phone,
      message: { type: "text", text: "e agora?" },
    });
    const got = await until(
      "the message",
      async () => (await c.events(a.id, "message")).map((e) => e.payload as Record<string, any>),
      (l) => l.some((p) => String(p.id).endsWith(sent.id)),
    );
    expect(got.filter((p) => p.text === "oi?")).toEqual([]);
    expect((await expectJson<Contact>(await api(`/contacts/${B}`))).blocked).toBe(false);
  });

  it("a block made on the phone reaches the instance; 404 and 422 on the routes", async () => {
    await sim("POST", `/simnet/phones/${a.phone}/blocks`, { phone: D });
    await until(
      "blocked from the phone",
      () => list(),
      (l) => l.find((x) => x.phone === D)?.blocked === true,
    );
    expect((await expectJson<Contact[]>(await api("/contacts/blocklist"))).map((x) => x.id)).toEqual([`${D}@c.us`]);
    await sim("DELETE", `/simnet/phones/${a.phone}/blocks/${D}`);
    await until(
      "unblocked from the phone",
      () => list(),
      (l) => l.find((x) => x.phone === D)?.blocked === false,
    );
    await expectError(await api(`/contacts/${NOBODY}/block`, { method: "POST" }), 404, "not_found");
    await expectError(await api("/contacts/nope/unblock", { method: "POST" }), 422, "validation_error");
  });

  it("someone who blocked us hides their picture and about text", async () => {
    await sim("POST", `/simnet/phones/${B}/blocks`, { phone: a.phone });
    await expectError(await api(`/contacts/${B}/picture?refresh=true`), 404, "not_found");
    expect((await expectJson<{ about: null }>(await api(`/contacts/${B}/about`))).about).toBeNull();
    // Our messages to them are accepted and never delivered.
    const out = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: B, text: "alô" } }),
      201,
    );
    const network = out.id.split("_").at(-1);
    const inbox = (await sim("GET", `/simnet/phones/${B}/inbox`)) as { messages: { id: string }[] };
    expect(inbox.messages.map((m) => m.id)).not.toContain(network);
    await sim("DELETE", `/simnet/phones/${B}/blocks/${a.phone}`);
    await expectJson(await api(`/contacts/${B}/picture?refresh=true`));
  });
});

describe("the number check and the instance's settings", () => {
  it("check-exists is the contacts area's number check", async () => {
    expect(await expectJson(await api(`/contacts/check-exists?phone=5531984440006`))).toMatchObject({
      exists: true,
      chatId: `${OLD}@c.us`,
    });
    expect(await expectJson(await api(`/contacts/check-exists?phone=${NOBODY}`))).toEqual({
      exists: false,
      chatId: null,
      lid: null,
    });
    expect(
      (await expectError(await api("/contacts/check-exists?phone=12"), 422, "validation_error")).error.details,
    ).toHaveProperty("phone");
  });

  it("storage.contacts off: the book reads empty and names are not shown; on again, it is back", async () => {
    await expectJson(await api("/settings", { method: "PATCH", json: { storage: { contacts: false } } }));
    expect(await list()).toEqual([]);
    expect(await expectJson(await api("/contacts/count"))).toEqual({ count: 0 });
    expect((await expectJson<Contact>(await api(`/contacts/${B}`))).name).toBeNull();
    await expectJson(await api("/settings", { method: "PATCH", json: { storage: { contacts: true } } }));
    expect(names(await list())).toEqual(["Ana Carla", "Bruno Souza", "Diego"]);
  });

  it("not connected: the book still reads, the network's routes answer instance_not_connected; a resync on return", async () => {
    await expectJson(await api("/stop", { method: "POST" }));
    await c.waitForStatus(a.id, "STOPPED");
    expect(await list()).toHaveLength(3);
    for (const [method, path] of [
      ["GET", `/contacts/${C}`],
      ["GET", `/contacts/${C}/about`],
      ["GET", `/contacts/${C}/picture?refresh=true`],
      ["GET", "/contacts/blocklist"],
      ["GET", `/contacts/check-exists?phone=${C}`],
      ["POST", `/contacts/${C}/block`],
      ["POST", `/contacts/${C}/unblock`],
    ] as const) {
      await expectError(await api(path, { method }), 422, "instance_not_connected");
    }
    // Changed on the phone while the instance was away: the whole book comes again when it reconnects.
    await sim("DELETE", `/simnet/phones/${a.phone}/contacts/${D}`);
    await sim("POST", `/simnet/phones/${a.phone}/blocks`, { phone: C });
    expect(await list()).toHaveLength(3);
    await expectJson(await api("/start", { method: "POST" }));
    await c.waitForStatus(a.id, "WORKING");
    const back = await until(
      "resynced",
      () => list(),
      (l) => l.length === 2 && l[0]!.blocked,
    );
    expect(back.map((x) => [x.name, x.blocked])).toEqual([
      ["Ana Carla", true],
      ["Bruno Souza", false],
    ]);
  });

  it("official instances: 501 not_supported_by_provider on every contacts route", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    const call = (m: string, p: string) => c.as(off.token)(`/v1/instances/${off.id}${p}`, { method: m });
    for (const [method, path] of [
      ["GET", "/contacts"],
      ["GET", "/contacts/count"],
      ["GET", `/contacts/check-exists?phone=${B}`],
      ["GET", "/contacts/blocklist"],
      ["GET", `/contacts/${B}`],
      ["GET", `/contacts/${B}/picture`],
      ["GET", `/contacts/${B}/about`],
      ["POST", `/contacts/${B}/block`],
      ["POST", `/contacts/${B}/unblock`],
    ] as const) {
      await expectError(await call(method, path), 501, "not_supported_by_provider");
    }
  });
});
