// The paths where media bytes used to reach Redis besides a send's kept message (docs/media.md
// "Where media bytes live"), end to end on the directory store: a template's and reply buttons'
// header file (the event's `raw`, its history and dispatch streams), a channel's picture (its day's
// cache), and a queued media send (its item, before and after it runs). After each, no value
// under the cluster's prefix holds any of the file's bytes, raw or base64, and the feature works:
// the operator gets the header, the link serves the picture, the contact the queued file's bytes.
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, until, waitUntil } from "../support/e2e-helpers.ts";
import { type OfficialNumber, type OfficialRig, startOfficial, waitForEvent } from "../support/official.ts";
import { footprint, needlesOf } from "../support/redis-media.ts";

type Obj = Record<string, any>;
let r: OfficialRig;
let n: OfficialNumber;
const a = { id: "", token: "", phone: "5531966660001" };
const ana = "5531966660002";
const CUSTOMER = "5521966660003";

const PNG_SIGNATURE = Buffer.from("89504e470d0a1a0a", "hex");
/** A PNG-looking file of `size` bytes, random past its signature: its needles are found nowhere by chance. */
const png = (size: number) => Buffer.concat([PNG_SIGNATURE, randomBytes(size - PNG_SIGNATURE.length)]);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const api = (path: string, json?: unknown, headers: Record<string, string> = {}) =>
  r.c.as(a.token)(`/v1/instances/${a.id}${path}`, json === undefined ? {} : { method: "POST", json, headers });
const official = (route: string, json: unknown) =>
  r.c.as(n.token)(`/v1/instances/${n.id}/messages/${route}`, { method: "POST", json });
const local = (link: string) => {
  const u = new URL(link);
  return `${r.c.url}${u.pathname}${u.search}`;
};
const held = async (file: Buffer) =>
  (await footprint(r.c.platform.redis, r.c.platform.config.KEY_PREFIX, needlesOf(file))).holding;
const inboxOf = async (phone: string) =>
  ((await expectJson(await r.c.sim("GET", `/simnet/phones/${phone}/inbox`))) as { messages: Obj[] }).messages;
const item = async (id: string) => expectJson<Obj>(await api(`/queue/${id}`));
/** The last `POST …/messages` body the operator received. */
const lastToOperator = async () => {
  const res = await r.ctl("GET", `/mock/numbers/${n.phoneNumberId}/requests`);
  const all = ((await res.json()) as { requests: { method: string; path: string; body: Obj }[] }).requests;
  return all.filter((q) => q.method === "POST" && q.path.endsWith("/messages")).at(-1)?.body;
};

beforeAll(async () => {
  r = await startOfficial();
  n = await r.number();
  Object.assign(a, await r.c.createInstance({ billingStatus: "active" }));
  await api("/start", {});
  await r.c.pair(a.id, a.phone);
  await r.c.sim("POST", "/simnet/phones", { phone: ana, pushName: "Ana" });
}, 120_000);
afterAll(() => r?.close());

describe("header files of official sends", () => {
  it("reply buttons with an image header: the operator gets it; the event names it without bytes", async () => {
    await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Oi" } }); // opens the 24 h window
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${CUSTOMER}@c.us`);
    const file = png(30_000);
    const out = await expectJson<{ id: string }>(
      await official("buttons", {
        phone: CUSTOMER,
        text: "Confirma?",
        buttons: [{ id: "yes", title: "Sim" }],
        header: { image: { data: file.toString("base64"), mimetype: "image/png" } },
      }),
      201,
    );
    expect(await lastToOperator()).toMatchObject({
      type: "interactive",
      interactive: { header: { type: "image", image: { id: expect.any(String) } } },
    });
    const [ev] = await waitForEvent(r.c, n.id, "message.any", (p) => p.id === out.id);
    expect((ev!.payload as Obj).raw.header).toEqual({ mediaType: "image", media: { mimetype: "image/png" } });
    expect(await r.c.platform.media.read(n.id, sha256(file))).toEqual(file);
    expect(await held(file)).toEqual([]);
  });

  it("a template with an image header: sent with the operator's media id; Redis holds none of it", async () => {
    const create = await r.c.as(n.token)(`/v1/instances/${n.id}/templates`, {
      method: "POST",
      json: {
        name: "foto_pedido",
        language: "pt_BR",
        category: "UTILITY",
        components: [
          { type: "HEADER", format: "IMAGE" },
          { type: "BODY", text: "Seu pedido {{1}} saiu." },
        ],
      },
    });
    await expectJson(create, 201);
    await waitForEvent(r.c, n.id, "template.status", (p) => p.name === "foto_pedido" && p.status === "APPROVED");
    const file = png(40_000);
    const template = {
      name: "foto_pedido",
      language: "pt_BR",
      header: { image: { data: file.toString("base64"), mimetype: "image/png" } },
      body: ["8601"],
    };
    const out = await expectJson<{ id: string }>(await official("template", { phone: CUSTOMER, template }), 201);
    expect(await lastToOperator()).toMatchObject({
      type: "template",
      template: {
        components: [{ type: "header", parameters: [{ type: "image", image: { id: expect.any(String) } }] }, {}],
      },
    });
    const [ev] = await waitForEvent(r.c, n.id, "message.any", (p) => p.id === out.id);
    const raw = (ev!.payload as Obj).raw;
    expect(raw).toMatchObject({ type: "template", name: "foto_pedido", header: { media: { mimetype: "image/png" } } });
    expect(raw.header.media).not.toHaveProperty("data");
    expect(await held(file)).toEqual([]);
  });
});

describe("a channel's picture", () => {
  it("above 4 KB goes to the media store; the link serves it; Redis keeps the reference", async () => {
    const file = png(20_000);
    const ch = await expectJson<Obj>(
      await api("/channels", { name: "Fotos", picture: { data: file.toString("base64"), mimetype: "image/png" } }),
      201,
    );
    const got = await fetch(local(ch.picture));
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(file);
    const cached = JSON.parse((await r.c.platform.redis.get(r.c.platform.keys.avatar(a.id, ch.id)))!);
    expect(cached).toEqual({ mimetype: "image/png", media: { sha256: sha256(file), size: file.length } });
    expect(await held(file)).toEqual([]);
  });
});

describe("a queued media send", () => {
  const queued = (file: Buffer, caption: string) =>
    api(
      "/messages/image",
      { phone: ana, caption, file: { data: file.toString("base64"), mimetype: "image/png" } },
      { "x-queue": "true" },
    );

  beforeAll(async () => {
    await r.c.as(a.token)(`/v1/instances/${a.id}/queue/settings`, {
      method: "PATCH",
      json: { delayMin: 0, delayMax: 0 },
    });
  });

  it("waits as a reference (the item shows what spec 2.7 shows), then delivers the file's bytes", async () => {
    await api("/queue/pause", {});
    const file = png(60_000);
    const accepted = await expectJson<Obj>(await queued(file, "na fila"), 202);
    const waiting = await item(accepted.id);
    expect(Object.keys(waiting).sort()).toEqual(
      [
        "attempts",
        "chatId",
        "createdAt",
        "delayMs",
        "error",
        "expiresAt",
        "finishedAt",
        "id",
        "messageId",
        "position",
        "route",
        "status",
        "typingMs",
      ].sort(),
    );
    expect(waiting).toMatchObject({ status: "queued", route: "POST /messages/image", chatId: `${ana}@c.us` });
    const page = await expectJson<{ data: Obj[] }>(await api("/queue?status=pending"));
    expect(page.data.map((x) => x.id)).toEqual([accepted.id]);
    expect(await held(file)).toEqual([]);
    expect(await r.c.platform.media.read(a.id, sha256(file))).toEqual(file);

    await api("/queue/resume", {});
    const sent = await waitUntil(
      () => item(accepted.id),
      (x) => x.status === "sent",
      "the item sent",
      30_000,
    );
    const got = await until(
      async () => (await inboxOf(ana)).find((m) => String(sent.messageId).endsWith(m.id)),
      "the contact's copy",
    );
    expect(got.message.caption).toBe("na fila");
    expect(Buffer.from(got.message.media.data, "base64")).toEqual(file);
    expect(await held(file)).toEqual([]);
  });

  it("an item whose file is gone from the store fails with not_found, and the queue goes on", async () => {
    await api("/queue/pause", {});
    const file = png(10_000);
    const accepted = await expectJson<Obj>(await queued(file, "sem arquivo"), 202);
    const hex = sha256(file);
    rmSync(join(r.c.platform.config.MEDIA_DIR, a.id, "sha256", hex.slice(0, 2), hex));
    const next = await expectJson<Obj>(await queued(png(5_000), "depois"), 202);
    await api("/queue/resume", {});
    const failed = await waitUntil(
      () => item(accepted.id),
      (x) => x.status === "failed",
      "the item failed",
      30_000,
    );
    expect(failed.error).toMatch(/^not_found: .*file\.data/);
    const [ev] = await waitForEvent(r.c, a.id, "queue.failed", (p) => p.id === accepted.id);
    expect((ev!.payload as Obj).error).toBe(failed.error);
    await waitUntil(
      () => item(next.id),
      (x) => x.status === "sent",
      "the next item sent",
      30_000,
    );
  });
});
