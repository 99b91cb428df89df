// Status posts (spec 4.8) end to end on simnet: real HTTP → session pod → simnet, then what the
// virtual phones were shown (only the audience), what a viewing instance receives, the poster's
// events (message.any / message.revoked with chatId status@broadcast), settings.ignore.status,
// every validation rule, the 404s and the official-kind 501s.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531972220xxx.
const a = { id: "", token: "", phone: "5531972220001" }; // the poster
const v = { id: "", token: "", phone: "5531972220005" }; // a viewer with an instance of its own
const B = "5531972220002"; // virtual contacts
const C = "5531972220003";
const D = "5531972220004";
const STATUS = "status@broadcast";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const media: Record<"wav" | "mp4" | "avi", Buffer> = {
  wav: Buffer.alloc(0),
  mp4: Buffer.alloc(0),
  avi: Buffer.alloc(0),
};

type Obj = Record<string, any>;
let api: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
const post = (route: string, json: unknown) => api(`/status/${route}`, { method: "POST", json });

const feed = async (phone: string): Promise<Obj[]> =>
  (await expectJson<{ statuses: Obj[] }>(await c.sim("GET", `/simnet/phones/${phone}/status-feed`))).statuses;
const posted = async (phone: string): Promise<Obj[]> =>
  (await expectJson<{ statuses: Obj[] }>(await c.sim("GET", `/simnet/phones/${phone}/statuses`))).statuses;
const netId = (apiId: string) => apiId.split("_")[2]!;

/** Posts and expects the 201 answer. */
async function publish(route: string, body: Obj, audienceSize?: number) {
  const out = await expectJson<Obj>(await post(route, body), 201);
  expect(out).toMatchObject({ chatId: STATUS, status: "sent" });
  expect(out.id).toMatch(/^true_status@broadcast_[A-Za-z0-9-]+$/);
  if (audienceSize !== undefined) expect(out.audienceSize).toBe(audienceSize);
  return out;
}

async function eventOf(instanceId: string, kind: string, pred: (p: Obj) => boolean) {
  return until(async () => (await c.events(instanceId, kind)).find((e) => pred(e.payload as Obj)), `${kind} event`);
}

async function setIgnoreStatus(id: string, token: string, on: boolean) {
  const res = await c.as(token)(`/v1/instances/${id}/settings`, { method: "PATCH", json: { ignore: { status: on } } });
  expect(res.status).toBe(200);
  await until(async () => (await c.platform.instanceCache.get(id))?.settings.ignore.status === on, "settings");
}

function ffmpeg(args: string[], out: string): Buffer {
  const r = spawnSync("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args, out]);
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(" ")}: ${r.stderr}`);
  return readFileSync(out);
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "status-"));
  try {
    media.wav = ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1"], join(dir, "v.wav"));
    const src = ["-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10"];
    media.mp4 = ffmpeg([...src, "-c:v", "libx264", "-pix_fmt", "yuv420p"], join(dir, "v.mp4"));
    media.avi = ffmpeg([...src, "-c:v", "mpeg4"], join(dir, "v.avi"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  c = await startCluster({ env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" } });
  for (const x of [a, v]) {
    Object.assign(x, await c.createInstance());
    await c.as(x.token)(`/v1/instances/${x.id}/start`, { method: "POST" });
    await c.pair(x.id, x.phone);
  }
  for (const [phone, pushName] of [
    [B, "Bia"],
    [C, "Caio"],
    [D, "Duda"],
  ]) {
    expect((await c.sim("POST", "/simnet/phones", { phone, pushName })).status).toBeLessThan(300);
  }
  api = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
}, 60_000);
afterAll(() => c?.close());

describe("the default audience", () => {
  it("without contacts and without one-to-one chats: 422 on contacts", async () => {
    const err = await expectError(
      await post("text", { text: "oi", backgroundColor: "#112233", font: 1 }),
      422,
      "validation_error",
    );
    expect(err.error.details).toHaveProperty("contacts");
  });
});

describe("publishing", () => {
  let textId = "";

  it("a text post reaches its audience, and only it, with its color and font", async () => {
    const out = await publish(
      "text",
      { text: "bom dia", backgroundColor: "ff0080", font: 2, contacts: [B, `${v.phone}@c.us`] },
      2,
    );
    textId = out.id;
    const shown = (await feed(B)).find((s) => s.id === netId(out.id));
    expect(shown).toMatchObject({
      from: { id: `${a.phone}@c.us`, phone: a.phone },
      message: { type: "text", text: "bom dia" },
      backgroundColor: "#FF0080",
      font: 2,
      deleted: false,
    });
    expect((await feed(C)).find((s) => s.id === netId(out.id))).toBeUndefined();
    expect((await feed(D)).find((s) => s.id === netId(out.id))).toBeUndefined();
    const mine = (await posted(a.phone)).find((s) => s.id === netId(out.id));
    expect(mine?.audience.sort()).toEqual([B, v.phone].sort());

    // The viewing instance gets it as a message of the status chat, from the poster.
    const seen = await eventOf(v.id, "message", (p) => p.id === `false_${STATUS}_${netId(out.id)}`);
    expect(seen.payload).toMatchObject({
      chatId: STATUS,
      fromMe: false,
      isGroup: false,
      type: "text",
      text: "bom dia",
      from: { id: `${a.phone}@c.us`, phone: a.phone },
    });

    // The poster's own announcement, with the spec's names, then its `sent` ack.
    const any = await eventOf(a.id, "message.any", (p) => p.id === out.id);
    expect(any.payload).toMatchObject({
      chatId: STATUS,
      fromMe: true,
      source: "api",
      status: "sent",
      type: "text",
      text: "bom dia",
      from: { id: `${a.phone}@c.us`, phone: a.phone },
    });
    const ack = await eventOf(a.id, "message.ack", (p) => p.id === out.id);
    expect(ack.payload).toMatchObject({ chatId: STATUS, status: "sent" });
    const kinds = (await c.events(a.id)).filter((e) => (e.payload as Obj).id === out.id).map((e) => e.event);
    expect(kinds.indexOf("message.any")).toBeLessThan(kinds.indexOf("message.ack"));
  });

  it("an image post, from base64", async () => {
    const out = await publish(
      "image",
      {
        contacts: [B],
        caption: "foto",
        file: { data: PNG.toString("base64"), mimetype: "image/png" },
      },
      1,
    );
    const shown = (await feed(B)).find((s) => s.id === netId(out.id));
    expect(shown?.message).toMatchObject({ type: "image", caption: "foto", media: { mimetype: "image/png" } });
    expect(Buffer.from(shown?.message.media.data, "base64").equals(PNG)).toBe(true);
    const any = await eventOf(a.id, "message.any", (p) => p.id === out.id);
    expect(any.payload).toMatchObject({
      chatId: STATUS,
      type: "image",
      text: "foto",
      media: { mimetype: "image/png" },
    });
  });

  it("a voice post, converted to OGG/Opus, with its background color", async () => {
    const out = await publish("voice", {
      contacts: [B],
      convert: true,
      backgroundColor: "#00AA00",
      file: { data: media.wav.toString("base64"), mimetype: "audio/wav" },
    });
    const shown = (await feed(B)).find((s) => s.id === netId(out.id));
    expect(shown).toMatchObject({ message: { type: "voice" }, backgroundColor: "#00AA00" });
    expect(shown?.message.media.mimetype).toMatch(/^audio\/ogg/);
    expect(shown?.message.seconds).toBeGreaterThanOrEqual(1);
  });

  it("a video post: MP4 as is, another format converted", async () => {
    const mp4 = await publish("video", {
      contacts: [B],
      convert: false,
      caption: "vídeo",
      file: { data: media.mp4.toString("base64"), mimetype: "video/mp4" },
    });
    expect((await feed(B)).find((s) => s.id === netId(mp4.id))?.message).toMatchObject({
      type: "video",
      caption: "vídeo",
    });
    const avi = await publish("video", {
      contacts: [B],
      convert: true,
      file: { data: media.avi.toString("base64"), mimetype: "video/x-msvideo" },
    });
    expect((await feed(B)).find((s) => s.id === netId(avi.id))?.message.media.mimetype).toBe("video/mp4");
  });

  it("the client's id (GET /status/new-message-id): a retry posts once", async () => {
    const { id } = await expectJson<{ id: string }>(await api("/status/new-message-id"));
    expect(id).toMatch(/^3EB0[0-9A-F]{18}$/);
    const body = { contacts: [C], text: "uma vez", backgroundColor: "#000000", font: 0, id };
    const one = await publish("text", body);
    const two = await publish("text", body);
    expect(one.id).toBe(`true_${STATUS}_${id}`);
    expect(two.id).toBe(one.id);
    expect((await posted(a.phone)).filter((s) => s.id === id)).toHaveLength(1);
    expect((await feed(C)).filter((s) => s.id === id)).toHaveLength(1);
    await eventOf(a.id, "message.any", (p) => p.id === one.id);
    expect((await c.events(a.id, "message.any")).filter((e) => (e.payload as Obj).id === one.id)).toHaveLength(1);
  });

  it("without contacts: the people the instance has one-to-one chats with", async () => {
    // D writes to the instance: a chat of the read model.
    expect(
      (await c.sim("POST", `/simnet/phones/${D}/send`, { to: a.phone, message: { type: "text", text: "oi" } })).status,
    ).toBe(201);
    await until(async () => {
      const chats = await expectJson<Obj[]>(await api("/chats"));
      return chats.some((ch) => ch.id === `${D}@c.us`);
    }, "D's chat");
    const out = await publish("text", { text: "para meus contatos", backgroundColor: "#123456", font: 1 });
    const mine = (await posted(a.phone)).find((s) => s.id === netId(out.id));
    expect(mine?.audience).toContain(D);
    expect(mine?.audience).not.toContain(C);
    expect(out.audienceSize).toBe(mine?.audience.length);
    expect((await feed(D)).some((s) => s.id === netId(out.id))).toBe(true);
    expect((await feed(C)).some((s) => s.id === netId(out.id))).toBe(false);
  });

  describe("deleting", () => {
    it("deletes for everyone who got it (the post's own audience); message.revoked on both sides", async () => {
      const res = await expectJson<Obj>(await post("delete", { id: textId }));
      expect(res).toEqual({ chatId: STATUS, id: textId, status: "deleted", audienceSize: 2 });
      await until(async () => (await feed(B)).find((s) => s.id === netId(textId))?.deleted, "deleted in B's feed");
      expect((await posted(a.phone)).find((s) => s.id === netId(textId))?.deleted).toBe(true);
      const mine = await eventOf(a.id, "message.revoked", (p) => p.messageId === textId);
      expect(mine.payload).toMatchObject({ chatId: STATUS, fromMe: true });
      const theirs = await eventOf(v.id, "message.revoked", (p) => p.chatId === STATUS);
      expect(theirs.payload.messageId).toBe(`false_${STATUS}_${netId(textId)}`);
      // After its message.any.
      const kinds = (await c.events(a.id)).map((e) => [e.event, (e.payload as Obj).id ?? (e.payload as Obj).messageId]);
      const at = (kind: string) => kinds.findIndex(([k, id]) => k === kind && id === textId);
      expect(at("message.any")).toBeGreaterThanOrEqual(0);
      expect(at("message.any")).toBeLessThan(kinds.findIndex(([k]) => k === "message.revoked"));
    });

    it("a bare network id works too; deleting twice is refused by the network", async () => {
      const out = await publish("text", { contacts: [B], text: "apagar", backgroundColor: "#FFFFFF", font: 1 });
      await expectJson(await post("delete", { id: netId(out.id) }));
      await expectError(await post("delete", { id: out.id }), 422, "network_rejected");
    });

    it("without an id, the newest post still on the network (spec: nothing required)", async () => {
      const out = await publish("text", { contacts: [B], text: "o último", backgroundColor: "#FFFFFF", font: 1 });
      const res = await expectJson<Obj>(await post("delete", {}));
      expect(res).toMatchObject({ id: out.id, status: "deleted", audienceSize: 1 });
      await until(async () => (await feed(B)).find((s) => s.id === netId(out.id))?.deleted, "deleted in B's feed");
      // Then the older ones, never one already deleted, until none is left: 404.
      const seen = new Set([out.id]);
      for (let i = 0; ; i++) {
        const next = await post("delete", {});
        if (next.status === 404) break;
        const body = (await next.json()) as Obj;
        expect(next.status, JSON.stringify(body)).toBe(200);
        expect(seen.has(body.id)).toBe(false);
        seen.add(body.id);
        expect(i).toBeLessThan(20);
      }
      await expectError(await post("delete", {}), 404, "not_found");
    });

    it("validation and 404s", async () => {
      const other = await expectError(await post("delete", { id: `true_${B}@c.us_3EB0AAAA` }), 422, "validation_error");
      expect(other.error.details).toHaveProperty("id");
      await expectError(await post("delete", { id: "3EB0NOTAPOST0000" }), 404, "not_found");
      await expectError(await post("delete", { id: `true_${STATUS}_3EB0NOTAPOST0000` }), 404, "not_found");
    });
  });
});

describe("settings.ignore.status", () => {
  it("silences the poster's events and the viewer's", async () => {
    await setIgnoreStatus(a.id, a.token, true);
    await setIgnoreStatus(v.id, v.token, true);
    try {
      const hidden = await publish("text", {
        contacts: [v.phone],
        text: "silêncio",
        backgroundColor: "#000000",
        font: 1,
      });
      // The post still reaches the viewer's phone...
      await until(async () => (await feed(v.phone)).some((s) => s.id === netId(hidden.id)), "the post in the feed");
      await setIgnoreStatus(a.id, a.token, false);
      await setIgnoreStatus(v.id, v.token, false);
      const shown = await publish("text", { contacts: [v.phone], text: "som", backgroundColor: "#000000", font: 1 });
      await eventOf(a.id, "message.any", (p) => p.id === shown.id);
      await eventOf(v.id, "message", (p) => p.id === `false_${STATUS}_${netId(shown.id)}`);
      // ...but no event of the first was emitted on either side.
      const all = [...(await c.events(a.id)), ...(await c.events(v.id))];
      expect(all.filter((e) => JSON.stringify(e.payload).includes(netId(hidden.id)))).toEqual([]);
    } finally {
      await setIgnoreStatus(a.id, a.token, false);
      await setIgnoreStatus(v.id, v.token, false);
    }
  });
});

describe("validation", () => {
  const text = { contacts: [B], text: "oi", backgroundColor: "#112233", font: 1 };
  const png = { data: PNG.toString("base64"), mimetype: "image/png" };
  const cases: [string, Obj, string][] = [
    ["text", { ...text, text: undefined }, "text"],
    ["text", { ...text, text: "" }, "text"],
    ["text", { ...text, text: "x".repeat(701) }, "text"],
    ["text", { ...text, backgroundColor: undefined }, "backgroundColor"],
    ["text", { ...text, backgroundColor: "vermelho" }, "backgroundColor"],
    ["text", { ...text, font: undefined }, "font"],
    ["text", { ...text, font: 3 }, "font"],
    ["text", { ...text, font: 1.5 }, "font"],
    ["text", { ...text, contacts: [] }, "contacts"],
    ["text", { ...text, contacts: ["não é número"] }, "contacts"],
    ["text", { ...text, contacts: "5531972220002" }, "contacts"],
    ["text", { ...text, id: "com_sublinhado" }, "id"],
    ["text", { ...text, linkPreview: "sim" }, "linkPreview"],
    ["image", { contacts: [B] }, "file"],
    ["image", { contacts: [B], file: { data: png.data } }, "mimetype"],
    [
      "image",
      { contacts: [B], file: { data: Buffer.from("%PDF-1.4\n").toString("base64"), mimetype: "application/pdf" } },
      "file",
    ],
    ["voice", { contacts: [B], file: png, backgroundColor: "#000000" }, "convert"],
    ["voice", { contacts: [B], file: png, convert: false }, "backgroundColor"],
    ["voice", { contacts: [B], file: png, convert: false, backgroundColor: "#000000" }, "file"],
    ["video", { contacts: [B], file: png }, "convert"],
    ["video", { contacts: [B], file: png, convert: false }, "file"],
  ];
  it.each(cases)("%s %j: 422 on %s", async (route, body, field) => {
    const err = await expectError(await post(route, body), 422, "validation_error");
    expect(Object.keys(err.error.details ?? {}).some((k) => k === field || k.endsWith(`.${field}`))).toBe(true);
  });
});

describe("instances that cannot post", () => {
  it("not connected: 422 instance_not_connected", async () => {
    const idle = await c.createInstance();
    const res = await c.as(idle.token)(`/v1/instances/${idle.id}/status/text`, {
      method: "POST",
      json: { contacts: [B], text: "oi", backgroundColor: "#000000", font: 1 },
    });
    await expectError(res, 422, "instance_not_connected");
  });

  it("official-gateway instances: every route answers 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    const call = c.as(off.token);
    for (const route of ["text", "image", "voice", "video", "delete"]) {
      const res = await call(`/v1/instances/${off.id}/status/${route}`, { method: "POST", json: {} });
      await expectError(res, 501, "not_supported_by_provider");
    }
    await expectError(await call(`/v1/instances/${off.id}/status/new-message-id`), 501, "not_supported_by_provider");
  });
});
