import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BinaryNode, WASocket } from "@whiskeysockets/baileys";
import { getBinaryNodeChild, getBinaryNodeChildren } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, type AreaRig, areaHarness, isUsync } from "../test/area-rig.ts";

/**
 * Contacts at Baileys' boundary: the stanzas each operation makes (`blocklist` get/set, the `usync`
 * status query, `w:profile:picture`), the network's answers as the API's, and the notifications the
 * network syncs (`contacts.upsert`/`contacts.update`, `blocklist.set`/`blocklist.update`) kept as the
 * provider's address-book and blocklist records.
 */

const B = "5511988887777";
const B_LID = "87654321012345@lid";
const C = "5511977776666";
const C_LID = "76543210123456@lid";
const STRANGER_LID = "11112222333344@lid";

let h: AreaHarness;
let pictures: Server;
let picturesUrl = "";
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);

beforeAll(async () => {
  h = await areaHarness();
  // The network's picture CDN: the session downloads the URL the network answers.
  pictures = createServer((req, res) => {
    if (req.url === "/pp/b.jpg") res.writeHead(200, { "content-type": "image/jpeg" }).end(JPEG);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pictures.listen(0, "127.0.0.1", resolve));
  picturesUrl = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}`;
});
afterEach(() => h.reset());
afterAll(async () => {
  await new Promise((resolve) => pictures?.close(resolve));
  await h?.close();
});

const book = (r: AreaRig) =>
  Object.fromEntries([...(r.records.get("contacts") ?? new Map())].map(([k, v]) => [k, JSON.parse(v)]));
const blocked = (r: AreaRig) => [...(r.records.get("blocklist") ?? new Map()).keys()].sort();
const pair = (sock: WASocket, lid: string, pn: string) =>
  sock.signalRepository.lidMapping.storeLIDPNMappings([{ lid, pn: `${pn}@s.whatsapp.net` }]);

const isBlocklist = (type: string) => (n: BinaryNode) => n.attrs.xmlns === "blocklist" && n.attrs.type === type;
const isPicture = (n: BinaryNode) => n.attrs.xmlns === "w:profile:picture";
const listOf = (...jids: string[]): BinaryNode[] => [
  { tag: "list", attrs: {}, content: jids.map((jid) => ({ tag: "item", attrs: { jid } })) },
];

/** Answers every blocklist query (the library's own at open, ours at open, the op's) until `done` settles. */
async function answerBlocklists<T>(r: AreaRig, done: Promise<T>, ...jids: string[]): Promise<T> {
  let settled = false;
  const out = done.finally(() => {
    settled = true;
  });
  while (!settled) {
    await Promise.race([h.answer(r.sock, isBlocklist("get"), () => listOf(...jids)).catch(() => {}), out]);
  }
  return out;
}

describe("Baileys contacts: the address book the network syncs", () => {
  it("contacts.upsert of the app state's contact actions: saved under the number, the lid kept and learnt", async () => {
    const r = await h.open();
    r.sock.ev.emit("contacts.upsert", [
      { id: `${B}@s.whatsapp.net`, lid: B_LID, name: "Bruno", username: undefined },
      // A contact saved by username: known by lid only.
      { id: STRANGER_LID, lid: STRANGER_LID, name: "Sem Número" },
      // History sync names groups too: not people.
      { id: "120363012345678901@g.us", name: "Equipe" },
      // A profile name alone (a message's push name) saves nobody.
      { id: `${C}@s.whatsapp.net`, notify: "Carla" },
    ]);
    await vi.waitFor(() =>
      expect(book(r)).toEqual({
        [`${B}@c.us`]: { id: `${B}@c.us`, phone: B, lid: B_LID, pushName: "", name: "Bruno" },
        [STRANGER_LID]: { id: STRANGER_LID, phone: "", lid: STRANGER_LID, pushName: "", name: "Sem Número" },
      }),
    );
    expect(r.known.get(B_LID)).toBe(B);
  });

  it("contacts.update: a rename, a saved person's new profile name; people not saved keep theirs in memory", async () => {
    const r = await h.open();
    r.sock.ev.emit("contacts.upsert", [{ id: `${B}@s.whatsapp.net`, lid: B_LID, name: "Bruno" }]);
    r.sock.ev.emit("contacts.update", [{ id: `${B}@s.whatsapp.net`, notify: "Bruno S." }]);
    r.sock.ev.emit("contacts.update", [{ id: B_LID, name: "Bruno Souza" }]);
    r.sock.ev.emit("contacts.update", [{ id: `${C}@s.whatsapp.net`, notify: "Carla" }]);
    await vi.waitFor(() =>
      expect(book(r)[`${B}@c.us`]).toEqual({
        id: `${B}@c.us`,
        phone: B,
        lid: B_LID,
        pushName: "Bruno S.",
        name: "Bruno Souza",
      }),
    );
    expect(Object.keys(book(r))).toEqual([`${B}@c.us`]); // the lid's update went to the number's entry
    expect(await r.ops["contacts.get"]!({ contactId: `${C}@c.us` })).toEqual({
      id: `${C}@c.us`,
      phone: C,
      lid: null,
      pushName: "Carla",
      blocked: false,
    });
  });

  it("messaging-history.set: push names taken, chats' display names not taken as saved names", async () => {
    const r = await h.open();
    r.sock.ev.emit("messaging-history.set", {
      chats: [],
      messages: [],
      contacts: [{ id: `${C}@s.whatsapp.net`, name: "Chat com Carla", notify: "Carla" }],
      isLatest: true,
    });
    await vi.waitFor(async () =>
      expect((await r.ops["contacts.get"]!({ contactId: `${C}@c.us` })).pushName).toBe("Carla"),
    );
    expect(book(r)).toEqual({});
  });

  it("get by lid: shown by number when the library knows the pair; a lid never met is 404", async () => {
    const r = await h.open();
    await pair(r.sock, C_LID, C);
    r.sock.ev.emit("contacts.update", [{ id: C_LID, notify: "Carla" }]);
    await vi.waitFor(async () =>
      expect(await r.ops["contacts.get"]!({ contactId: C_LID })).toEqual({
        id: `${C}@c.us`,
        phone: C,
        lid: C_LID,
        pushName: "Carla",
        blocked: false,
      }),
    );
    expect(r.known.get(C_LID)).toBe(C);
    await expect(r.ops["contacts.get"]!({ contactId: STRANGER_LID })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("Baileys contacts: blocks", () => {
  it("blocklist: fetchBlocklist's <iq xmlns=blocklist type=get>, read at open too; lids by number when known", async () => {
    const r = await h.open();
    await pair(r.sock, B_LID, B);
    const list = await answerBlocklists(r, r.ops["contacts.blocklist"]!({}), B_LID, STRANGER_LID);
    expect(list).toEqual([
      { id: `${B}@c.us`, phone: B, lid: B_LID, pushName: "", blocked: true },
      { id: STRANGER_LID, phone: "", lid: STRANGER_LID, pushName: "", blocked: true },
    ]);
    expect(blocked(r)).toEqual([STRANGER_LID, `${B}@c.us`]);
    const queries = (await h.sentNodes()).filter(isBlocklist("get"));
    // The library's init query, ours at open, the operation's.
    expect(queries.length).toBeGreaterThanOrEqual(3);
    expect(queries[0]!.attrs.to).toBe("@s.whatsapp.net");
  });

  it("blocklist.update (add/remove) and blocklist.set keep the records; get says blocked", async () => {
    const r = await h.open();
    await pair(r.sock, B_LID, B);
    r.sock.ev.emit("blocklist.update", { blocklist: [B_LID], type: "add" });
    r.sock.ev.emit("blocklist.update", { blocklist: [`${C}@s.whatsapp.net`], type: "add" });
    await vi.waitFor(() => expect(blocked(r)).toEqual([`${C}@c.us`, `${B}@c.us`]));
    expect((await r.ops["contacts.get"]!({ contactId: `${B}@c.us` })).blocked).toBe(true);
    r.sock.ev.emit("blocklist.update", { blocklist: [`${B}@s.whatsapp.net`], type: "remove" });
    await vi.waitFor(() => expect(blocked(r)).toEqual([`${C}@c.us`]));
    r.sock.ev.emit("blocklist.set", { blocklist: [STRANGER_LID] });
    await vi.waitFor(() => expect(blocked(r)).toEqual([STRANGER_LID]));
  });

  it("block/unblock: updateBlockStatus's <item action jid=<lid> pn_jid>; unblock by lid alone; refusals mapped", async () => {
    const r = await h.open();
    await pair(r.sock, B_LID, B);
    const done = r.ops["contacts.block"]!({ contactId: `${B}@c.us`, block: true });
    const q = await h.answer(r.sock, isBlocklist("set"), () => []);
    expect(getBinaryNodeChild(q, "item")!.attrs).toEqual({
      action: "block",
      jid: B_LID,
      pn_jid: `${B}@s.whatsapp.net`,
    });
    expect(await done).toEqual({ success: true });
    expect(blocked(r)).toEqual([`${B}@c.us`]);

    const undo = r.ops["contacts.block"]!({ contactId: B_LID, block: false });
    const uq = await h.answer(r.sock, isBlocklist("set"), () => []);
    expect(getBinaryNodeChild(uq, "item")!.attrs).toEqual({ action: "unblock", jid: B_LID });
    await undo;
    expect(blocked(r)).toEqual([]);

    const refused = r.ops["contacts.block"]!({ contactId: `${B}@c.us`, block: true });
    const node = await vi.waitFor(
      async () => {
        const n = (await h.sentNodes()).filter(isBlocklist("set")).at(-1);
        if (!n || n === uq || n.attrs.id === uq.attrs.id) throw new Error("not yet");
        return n;
      },
      { timeout: 10_000 },
    );
    r.sock.ws.emit(`TAG:${node.attrs.id}`, {
      tag: "iq",
      attrs: { id: node.attrs.id!, type: "error" },
      content: [{ tag: "error", attrs: { code: "403", text: "forbidden" } }],
    });
    await expect(refused).rejects.toMatchObject({ code: "network_rejected" });
    expect(blocked(r)).toEqual([]);
  });
});

describe("Baileys contacts: about and picture", () => {
  it("about: fetchStatus's usync with the status protocol; the text and when; hidden (401) or none is null", async () => {
    const r = await h.open();
    const done = r.ops["contacts.about"]!({ contactId: `${B}@c.us` });
    const q = await h.answer(r.sock, isUsync, () => [
      {
        tag: "usync",
        attrs: {},
        content: [
          {
            tag: "list",
            attrs: {},
            content: [
              {
                tag: "user",
                attrs: { jid: `${B}@s.whatsapp.net` },
                content: [{ tag: "status", attrs: { t: "1700000000" }, content: Buffer.from("No trabalho") }],
              },
            ],
          },
        ],
      },
    ]);
    const usync = getBinaryNodeChild(q, "usync")!;
    expect(getBinaryNodeChildren(getBinaryNodeChild(usync, "query"), "status")).toHaveLength(1);
    expect(getBinaryNodeChildren(getBinaryNodeChild(usync, "list"), "user").map((u) => u.attrs.jid)).toEqual([
      `${B}@s.whatsapp.net`,
    ]);
    expect(await done).toEqual({ about: "No trabalho", setAt: 1700000000 });

    const hidden = r.ops["contacts.about"]!({ contactId: `${C}@c.us` });
    await h.answer(r.sock, isUsync, () => [
      {
        tag: "usync",
        attrs: {},
        content: [
          {
            tag: "list",
            attrs: {},
            content: [
              {
                tag: "user",
                attrs: { jid: `${C}@s.whatsapp.net` },
                content: [{ tag: "status", attrs: { code: "401", t: "0" } }],
              },
            ],
          },
        ],
      },
    ]);
    expect(await hidden).toEqual({ about: null, setAt: null });
  });

  it("picture: profilePictureUrl's <iq xmlns=w:profile:picture target> for the image; the bytes downloaded; none → null", async () => {
    const r = await h.open();
    // Pictures of people carry their privacy token, found by lid: pairs the library knows ask no more.
    await pair(r.sock, B_LID, B);
    await pair(r.sock, C_LID, C);
    const got = r.session.picture(`${B}@c.us`);
    const q = await h.answer(r.sock, isPicture, () => [
      { tag: "picture", attrs: { id: "1", type: "image", url: `${picturesUrl}/pp/b.jpg` } },
    ]);
    expect(q.attrs).toMatchObject({ target: `${B}@s.whatsapp.net`, type: "get", to: "@s.whatsapp.net" });
    expect(getBinaryNodeChild(q, "picture")!.attrs).toMatchObject({ type: "image", query: "url" });
    expect(await got).toEqual({ data: JPEG.toString("base64"), mimetype: "image/jpeg" });

    const none = r.session.picture(`${C}@c.us`);
    const nq = await vi.waitFor(
      async () => {
        const n = (await h.sentNodes()).filter(isPicture).find((x) => x.attrs.target === `${C}@s.whatsapp.net`);
        if (!n) throw new Error("not yet");
        return n;
      },
      { timeout: 10_000 },
    );
    r.sock.ws.emit(`TAG:${nq.attrs.id}`, {
      tag: "iq",
      attrs: { id: nq.attrs.id!, type: "error" },
      content: [{ tag: "error", attrs: { code: "404", text: "item-not-found" } }],
    });
    expect(await none).toBeNull();
  });
});
