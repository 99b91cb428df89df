// Profile (spec 4.3) end to end on simnet: real HTTP → session pod → simnet, then what the network
// holds and what a contact sees (simnet's control API): the name (the instance's pushName, GET /me
// and the account's other linked device following it), the about text, the picture by data and by
// URL (JPEG/PNG only, by their bytes; the URL guard), its signed link, removal; every validation
// rule, instance_not_connected and the official-kind 501s.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson, until } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531974440xxx.
const a = { id: "", token: "", phone: "5531974440001" }; // the account whose profile changes
const a2 = { id: "", token: "", phone: "5531974440001" }; // another linked device of the same account
const CONTACT = "5531974440100"; // a virtual phone: what others see

type Obj = Record<string, any>;
type Api = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
let asA: Api;
let asA2: Api;

/** A PNG of one colour (made here: no binary fixtures). */
function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).fill(Buffer.from(rgb))]);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
/** A 2×2 JPEG. */
const JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABMAAEBAAAAAAAAAAAAAAAAAAAABgEBAQAAAAAAAAAAAAAAAAAABgcQAQAAAAAAAAAAAAAAAAAAAAARAQAAAAAAAAAAAAAAAAAAAAD/wAARCAACAAIDASIAAhEAAxEA/9oADAMBAAIRAxEAPwCLAFF/f//Z",
  "base64",
);
const PNG = png(4, 3, [0, 128, 255]);

const sim = async (method: string, path: string, json?: unknown, status = 200) =>
  expectJson<Obj>(await c.sim(method, path, json), status);
/** What the contact sees of the account. */
const seenByContact = () => sim("GET", `/simnet/phones/${CONTACT}/contacts/${a.phone}`);
/** A signed link of the gateway, fetched from this cluster's address. */
const fetchLink = (link: string) => {
  const u = new URL(link);
  return fetch(`${c.url}${u.pathname}${u.search}`);
};
const instanceOf = async (api: Api) => (await expectJson<Obj>(await api(""))).instance as Obj;

// A local HTTP server for `file.url` (the test env allows private addresses: WEBHOOK_ALLOW_PRIVATE).
let files: Server;
let filesUrl = "";

beforeAll(async () => {
  files = createServer((req, res) => {
    if (req.url === "/pic.jpg") return res.writeHead(200, { "content-type": "image/jpeg" }).end(JPEG);
    if (req.url === "/fake.png") return res.writeHead(200, { "content-type": "image/png" }).end("not an image");
    if (req.url === "/anim.gif") return res.writeHead(200, { "content-type": "image/gif" }).end("GIF89a....");
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => files.listen(0, "127.0.0.1", r));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  c = await startCluster({ env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" } });
  await sim("POST", "/simnet/phones", { phone: a.phone, pushName: "Ana" }, 201);
  for (const x of [a, a2]) {
    Object.assign(x, await c.createInstance());
    await c.as(x.token)(`/v1/instances/${x.id}/start`, { method: "POST" });
    await c.pair(x.id, x.phone);
  }
  await sim("POST", "/simnet/phones", { phone: CONTACT }, 201);
  asA = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
  asA2 = (path, init) => c.as(a2.token)(`/v1/instances/${a2.id}${path}`, init);
}, 60_000);
afterAll(async () => {
  await c?.close();
  files?.close();
});

describe("the account's profile", () => {
  it("GET /profile: id, name, no picture, no about yet", async () => {
    expect(await expectJson(await asA("/profile"))).toEqual({
      id: `${a.phone}@c.us`,
      name: "Ana",
      picture: null,
      about: null,
    });
  });

  it("PUT /profile/name: GET /me, the instance's pushName, the other linked device and contacts follow", async () => {
    expect(await expectJson(await asA("/profile/name", { method: "PUT", json: { name: "  Loja da Ana " } }))).toEqual({
      success: true,
    });
    expect((await expectJson<Obj>(await asA("/me"))).pushName).toBe("Loja da Ana");
    expect((await expectJson<Obj>(await asA("/profile"))).name).toBe("Loja da Ana");
    await until(async () => (await instanceOf(asA)).pushName === "Loja da Ana", "pushName of the instance");
    // The other device of the account hears of it from the network.
    await until(async () => (await instanceOf(asA2)).pushName === "Loja da Ana", "pushName of the other device");
    expect((await expectJson<Obj>(await asA2("/me"))).pushName).toBe("Loja da Ana");
    expect(await seenByContact()).toMatchObject({ id: `${a.phone}@c.us`, pushName: "Loja da Ana" });
    // What the account sends from now on carries the new name.
    await expectJson(await asA("/messages/text", { method: "POST", json: { chatId: CONTACT, text: "oi" } }), 201);
    const inbox = await sim("GET", `/simnet/phones/${CONTACT}/inbox`);
    expect(inbox.messages.at(-1)).toMatchObject({ from: { phone: a.phone, pushName: "Loja da Ana" } });
    // The webhook envelope's `me` follows too.
    const ev = await until(async () => (await c.events(a.id, "message.any")).at(-1), "message.any");
    expect(ev.me).toMatchObject({ pushName: "Loja da Ana" });
  });

  it("PUT /profile/status: the about text contacts see", async () => {
    expect(
      await expectJson(await asA("/profile/status", { method: "PUT", json: { status: "Atendimento das 8h às 18h" } })),
    ).toEqual({ success: true });
    expect((await seenByContact()).about).toBe("Atendimento das 8h às 18h");
    expect((await expectJson<Obj>(await asA("/profile"))).about).toBe("Atendimento das 8h às 18h");
  });

  it("PUT /profile/picture by data: the contact sees it; GET /profile links to it", async () => {
    const res = await asA("/profile/picture", {
      method: "PUT",
      json: { file: { data: PNG.toString("base64"), mimetype: "image/png" } },
    });
    expect(await expectJson(res)).toEqual({ success: true });
    expect((await seenByContact()).picture).toEqual({ data: PNG.toString("base64"), mimetype: "image/png" });
    const profile = await expectJson<Obj>(await asA("/profile"));
    expect(profile.picture).toMatch(new RegExp(`/v1/avatars/${a.id}/${a.phone}@c\\.us\\.jpg\\?exp=\\d+&sig=`));
    const pic = await fetchLink(profile.picture);
    expect(pic.status).toBe(200);
    expect(Buffer.from(await pic.arrayBuffer()).equals(PNG)).toBe(true);
    // The other device's view of the account's picture is the network's too.
    const seen = await expectJson<Obj>(await asA2(`/chats/${a.phone}@c.us/picture`));
    expect(Buffer.from(await (await fetchLink(seen.url)).arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("PUT /profile/picture by url: a JPEG replaces it (the cached picture is dropped at once)", async () => {
    const before = (await expectJson<Obj>(await asA("/profile"))).picture as string;
    expect(
      await expectJson(
        await asA("/profile/picture", { method: "PUT", json: { file: { url: `${filesUrl}/pic.jpg` } } }),
      ),
    ).toEqual({
      success: true,
    });
    expect((await seenByContact()).picture).toEqual({ data: JPEG.toString("base64"), mimetype: "image/jpeg" });
    // The link given before serves the new picture: the day's cache was dropped.
    expect(Buffer.from(await (await fetchLink(before)).arrayBuffer()).equals(JPEG)).toBe(true);
  });

  it("DELETE /profile/picture: gone for contacts; the profile has none and old links answer 404", async () => {
    const link = (await expectJson<Obj>(await asA("/profile"))).picture as string;
    expect(await expectJson(await asA("/profile/picture", { method: "DELETE" }))).toEqual({ success: true });
    expect((await seenByContact()).picture).toBeNull();
    expect((await expectJson<Obj>(await asA("/profile"))).picture).toBeNull();
    await expectError(await fetchLink(link), 404, "not_found");
  });
});

describe("validation", () => {
  const put = (path: string, json: unknown) => asA(path, { method: "PUT", json });

  it("name and status: required, not blank, within the network's limits", async () => {
    for (const [body, detail] of [
      [{}, "campo obrigatório"],
      [{ name: "   " }, "informe o nome"],
      [{ name: 12 }, "campo obrigatório"],
      [{ name: "x".repeat(26) }, "nome: até 25 caracteres"],
    ] as const) {
      const err = await expectError(await put("/profile/name", body), 422, "validation_error");
      expect(err.error.details?.name, JSON.stringify(body)).toBe(detail);
    }
    expect(await expectJson(await put("/profile/name", { name: "x".repeat(25) }))).toEqual({ success: true });
    for (const body of [{}, { status: "" }, { status: "y".repeat(140) }]) {
      const err = await expectError(await put("/profile/status", body), 422, "validation_error");
      expect(err.error.details, JSON.stringify(body)).toHaveProperty("status");
    }
    // Nothing of the refused reached the network.
    expect((await seenByContact()).about).toBe("Atendimento das 8h às 18h");
  });

  it("picture: a file object of spec 2.5, JPEG or PNG by its bytes", async () => {
    const cases: [unknown, number, string, string][] = [
      [{}, 422, "validation_error", "file"],
      [{ file: {} }, 422, "validation_error", "file"],
      [{ file: { data: PNG.toString("base64") } }, 422, "validation_error", "file.mimetype"],
      [{ file: { data: PNG.toString("base64"), mimetype: "image/gif" } }, 422, "validation_error", "file.mimetype"],
      [{ file: { data: "###", mimetype: "image/png" } }, 422, "validation_error", "file.data"],
      [
        { file: { data: Buffer.from("GIF89a....").toString("base64"), mimetype: "image/png" } },
        422,
        "validation_error",
        "file",
      ],
      [{ file: { url: `${filesUrl}/fake.png` } }, 422, "validation_error", "file"],
      [{ file: { url: `${filesUrl}/anim.gif` } }, 422, "validation_error", "file"],
      [{ file: { url: `${filesUrl}/missing.jpg` } }, 422, "validation_error", "file.url"],
      [
        { file: { data: Buffer.alloc(5 * 1024 * 1024 + 1, 1).toString("base64"), mimetype: "image/png" } },
        413,
        "payload_too_large",
        "file.data",
      ],
    ];
    for (const [body, status, code, field] of cases) {
      const err = await expectError(await put("/profile/picture", body), status, code);
      expect(err.error.details, JSON.stringify(body).slice(0, 120)).toHaveProperty([field]);
    }
    expect((await seenByContact()).picture).toBeNull();
  });
});

describe("other instances", () => {
  const ROUTES: [string, string, unknown?][] = [
    ["GET", "/profile"],
    ["PUT", "/profile/name", { name: "X" }],
    ["PUT", "/profile/status", { status: "X" }],
    ["PUT", "/profile/picture", { file: { data: PNG.toString("base64"), mimetype: "image/png" } }],
    ["DELETE", "/profile/picture"],
  ];

  it("not connected: 422 instance_not_connected on every route", async () => {
    const idle = await c.createInstance();
    for (const [method, path, json] of ROUTES) {
      const res = await c.as(idle.token)(`/v1/instances/${idle.id}${path}`, { method, ...(json ? { json } : {}) });
      await expectError(res, 422, "instance_not_connected");
    }
  });

  it("official-gateway instances: every route answers 501 not_supported_by_provider", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    for (const [method, path, json] of ROUTES) {
      const res = await c.as(off.token)(`/v1/instances/${off.id}${path}`, { method, ...(json ? { json } : {}) });
      await expectError(res, 501, "not_supported_by_provider");
    }
  });
});

describe("with private addresses forbidden (WEBHOOK_ALLOW_PRIVATE=false)", () => {
  let strict: Cluster;

  beforeAll(async () => {
    strict = await startCluster({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
  }, 60_000);
  afterAll(() => strict?.close());

  it("file.url to an internal address or another port → 400 url_not_allowed, nothing set", async () => {
    const s = await strict.createInstance();
    const phone = "5531974440200";
    await strict.as(s.token)(`/v1/instances/${s.id}/start`, { method: "POST" });
    await strict.pair(s.id, phone);
    for (const url of [
      `${filesUrl}/pic.jpg`,
      "http://169.254.169.254/latest/meta-data",
      "https://example.com:8443/a.jpg",
    ]) {
      const res = await strict.as(s.token)(`/v1/instances/${s.id}/profile/picture`, {
        method: "PUT",
        json: { file: { url } },
      });
      const err = await expectError(res, 400, "url_not_allowed");
      expect(err.error.details, url).toHaveProperty(["file.url"]);
    }
    await expectJson(await strict.sim("POST", "/simnet/phones", { phone: CONTACT }), 201);
    const seen = await expectJson<Obj>(await strict.sim("GET", `/simnet/phones/${CONTACT}/contacts/${phone}`));
    expect(seen.picture).toBeNull();
  });
});
