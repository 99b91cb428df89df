import type { BinaryNode, WASocket } from "@whiskeysockets/baileys";
import { getBinaryNodeChild, getBinaryNodeChildren } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AreaHarness, areaHarness, isUsync } from "./test/area-rig.ts";

/**
 * Group sends at Baileys' boundary: a real socket relays to a local endpoint, the network's
 * answers to its queries are handed back to it, and what it asked is counted. Without
 * `cachedGroupMetadata` Baileys asks for the group's metadata before every group send
 * (lib/Socket/messages-send.js:501-506).
 */

const GROUP = "120363012345678901@g.us";
const OTHER_GROUP = "120363099999999999@g.us";
const ME = "5511999999999@s.whatsapp.net";
const B = "5511988887777@s.whatsapp.net";
const NEW = "5511955554444@s.whatsapp.net";
const text = { type: "text", text: "oi" } as const;

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

/** The metadata query Baileys' `groupMetadata` makes (lib/Socket/groups.js:19-21). */
const isMetadataQuery = (jid?: string) => (n: BinaryNode) =>
  n.attrs.xmlns === "w:g2" &&
  (!jid || n.attrs.to === jid) &&
  getBinaryNodeChild(n, "query")?.attrs.request === "interactive";
const metadataQueries = async (jid = GROUP) => (await h.sentNodes()).filter(isMetadataQuery(jid)).length;

/** The network's `<group>` of a metadata answer: `pn` addressing, its participants by number. */
function groupNode(jid: string, participants: string[]): BinaryNode {
  return {
    tag: "group",
    attrs: {
      id: jid.split("@")[0]!,
      subject: "Equipe",
      creation: "1700000000",
      creator: ME,
      s_t: "1",
      addressing_mode: "pn",
    },
    content: participants.map((p) => ({ tag: "participant", attrs: { jid: p } })),
  };
}

/** A device query answered: each user asked has no other device (nothing to encrypt for). */
function noDevices(q: BinaryNode): BinaryNode[] {
  const users = getBinaryNodeChildren(getBinaryNodeChild(getBinaryNodeChild(q, "usync"), "list"), "user");
  return [
    {
      tag: "usync",
      attrs: {},
      content: [
        {
          tag: "list",
          attrs: {},
          content: users.map((u) => ({
            tag: "user",
            attrs: { jid: u.attrs.jid! },
            content: [{ tag: "devices", attrs: {}, content: [{ tag: "device-list", attrs: {}, content: [] }] }],
          })),
        },
      ],
    },
  ];
}

const answered = new Set<string>();
/**
 * Runs `work` while the network answers: device queries with no devices, metadata queries with
 * `participants` (so a send that asks still completes, and the count tells).
 */
async function whileAnswering<T>(sock: WASocket, participants: string[], work: Promise<T>): Promise<T> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    for (const n of await h.sentNodes()) {
      const id = n.attrs.id;
      if (!id || answered.has(id)) continue;
      let content: BinaryNode[] | undefined;
      if (isUsync(n)) content = noDevices(n);
      else if (isMetadataQuery()(n)) content = [groupNode(n.attrs.to!, participants)];
      if (!content) continue;
      answered.add(id);
      sock.ws.emit(`TAG:${id}`, { tag: "iq", attrs: { id, type: "result" }, content });
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return finished;
}

/** The users the latest device query asked about. */
async function lastDeviceQueryUsers(): Promise<string[]> {
  const q = (await h.sentNodes()).filter(isUsync).at(-1);
  const list = getBinaryNodeChild(getBinaryNodeChild(q, "usync"), "list");
  return getBinaryNodeChildren(list, "user").map((u) => u.attrs.jid!);
}

describe("Baileys group sends: cachedGroupMetadata", () => {
  it("the first send asks for the group's metadata once; the next send asks nothing (the cache)", async () => {
    const r = await h.open();
    const first = await whileAnswering(r.sock, [ME, B], r.session.send(GROUP, text));
    expect(first.chatId).toBe(GROUP);
    expect(await metadataQueries()).toBe(1);

    const second = await whileAnswering(r.sock, [ME, B], r.session.send(GROUP, { type: "text", text: "de novo" }));
    expect(second.chatId).toBe(GROUP);
    expect(await metadataQueries()).toBe(1);
    // Both went out, addressed as the network's answer said (`addressing_mode`, lib/Socket/messages-send.js:535).
    const sent = (await h.sentNodes(["message"])).filter((n) => n.attrs.to === GROUP);
    expect(sent.map((n) => n.attrs.addressing_mode)).toEqual(["pn", "pn"]);
  });

  it("kept fresh: a subject change keeps the entry; a participants change drops it, so the next send reaches the new member", async () => {
    const r = await h.open();
    await whileAnswering(r.sock, [ME, B], r.session.send(GROUP, text));
    expect(await metadataQueries()).toBe(1);

    // Named by the event, so the groups area does not ask for the name either.
    r.sock.ev.emit("groups.update", [{ id: GROUP, subject: "Equipe Sul", author: B }]);
    r.sock.ev.flush();
    await whileAnswering(r.sock, [ME, B], r.session.send(GROUP, text));
    expect(await metadataQueries()).toBe(1);
    expect(await lastDeviceQueryUsers()).not.toContain(NEW);

    r.sock.ev.emit("group-participants.update", { id: GROUP, author: B, participants: [{ id: NEW }], action: "add" });
    r.sock.ev.flush();
    await whileAnswering(r.sock, [ME, B, NEW], r.session.send(GROUP, text));
    expect(await metadataQueries()).toBe(2);
    // The send's recipients come from the new answer: the member added is asked for.
    expect(await lastDeviceQueryUsers()).toContain(NEW);
  });

  it("a group this number was added to comes with its metadata (groups.upsert): its first send asks nothing", async () => {
    const r = await h.open();
    r.sock.ev.emit("groups.upsert", [
      {
        id: OTHER_GROUP,
        subject: "Nova",
        owner: B,
        addressingMode: "pn" as never,
        participants: [{ id: ME }, { id: B }],
        author: B,
      },
    ]);
    r.sock.ev.flush();
    const sent = await whileAnswering(r.sock, [ME, B], r.session.send(OTHER_GROUP, text));
    expect(sent.chatId).toBe(OTHER_GROUP);
    expect(await metadataQueries(OTHER_GROUP)).toBe(0);

    // The disappearing-messages timer changed (a chat update): sends carry it, so it is asked again.
    r.sock.ev.emit("chats.update", [{ id: OTHER_GROUP, ephemeralExpiration: 86_400 }]);
    r.sock.ev.flush();
    const again = r.session.send(OTHER_GROUP, text);
    const q = await h.answer(r.sock, isMetadataQuery(OTHER_GROUP), () => [groupNode(OTHER_GROUP, [ME, B])]);
    expect(q.attrs.type).toBe("get");
    expect((await whileAnswering(r.sock, [ME, B], again)).chatId).toBe(OTHER_GROUP);
    expect(await metadataQueries(OTHER_GROUP)).toBe(1);
  });
});
