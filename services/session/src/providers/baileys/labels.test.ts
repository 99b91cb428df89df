import { randomBytes } from "node:crypto";
import { ApiError, labelsCapabilities, labelsOps } from "@gw/contracts";
import {
  type BinaryNode,
  type ChatMutation,
  chatModificationToAppPatch,
  decodePatches,
  encodeSyncdPatch,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  newLTHashState,
  proto,
} from "@whiskeysockets/baileys";
import { LabelAssociationType } from "@whiskeysockets/baileys/lib/Types/LabelAssociation.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, type AreaRig, areaHarness } from "./area-rig.ts";

/**
 * Labels at Baileys' boundary: each operation's app-state patch (the `w:sync:app:state` stanza
 * Baileys encrypts with the account's app-state key, decoded back here with that key into its
 * `label_edit` / `label_jid` mutations), the chat lookups it needs, and the app-state
 * notifications (`labels.edit`, `labels.association`, and a phone's patch arriving through a
 * `server_sync` notification) as the spec's events, in order.
 */

const B = "5511988887777";
const B_JID = `${B}@s.whatsapp.net`;
const US = "14155550100"; // no ninth-digit twin: one number lookup
const GROUP = "120363012345678901@g.us";
const KEY_ID = Buffer.from("labels-test-key").toString("base64");
const KEY = proto.Message.AppStateSyncKeyData.fromObject({
  keyData: randomBytes(32),
  fingerprint: { rawId: 1, currentIndex: 0, deviceIndexes: [0] },
  timestamp: Date.now(),
});

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

/** A rig whose account is on the business app (`smba`) and holds an app-state key, as after pairing. */
async function openRig(platform: string | undefined = "smba"): Promise<AreaRig> {
  const r = await h.open();
  r.sock.authState.creds.platform = platform;
  r.sock.authState.creds.myAppStateKeyId = KEY_ID;
  await r.sock.authState.keys.set({ "app-state-sync-key": { [KEY_ID]: KEY } });
  return r;
}

const getKey = async (id: string) => (id === KEY_ID ? KEY : undefined);

const appState = (n: BinaryNode) => n.attrs.xmlns === "w:sync:app:state";
const collectionOf = (n: BinaryNode) => getBinaryNodeChildren(getBinaryNodeChild(n, "sync"), "collection");
/** Baileys' resync of `regular` before a patch: the collection asked alone, no patch in it. */
const isResync = (n: BinaryNode) =>
  appState(n) &&
  collectionOf(n).length === 1 &&
  collectionOf(n)[0]!.attrs.name === "regular" &&
  !getBinaryNodeChild(collectionOf(n)[0], "patch");
const isPatch = (n: BinaryNode) => appState(n) && !!getBinaryNodeChild(collectionOf(n)[0], "patch");
const upToDate = (): BinaryNode[] => [
  { tag: "sync", attrs: {}, content: [{ tag: "collection", attrs: { name: "regular", version: "0" } }] },
];

/** Answers one app patch (the resync, then the patch) and decodes its mutations with the account's key. */
async function patchSent(r: AreaRig): Promise<{ index: string[]; value: proto.ISyncActionValue }[]> {
  await h.answer(r.sock, isResync, upToDate);
  const q = await h.answer(r.sock, isPatch, () => []);
  const collection = collectionOf(q)[0]!;
  expect(collection.attrs.name).toBe("regular");
  const bytes = getBinaryNodeChild(collection, "patch")!.content as Uint8Array;
  const patch = proto.SyncdPatch.decode(bytes);
  const { mutationMap } = await decodePatches(
    "regular",
    [{ ...patch, version: { version: Number(collection.attrs.version) + 1 } }],
    newLTHashState(),
    getKey,
    {},
  );
  return Object.values(mutationMap).map((m: ChatMutation) => ({
    index: m.index,
    value: m.syncAction.value ?? {},
  }));
}

const usyncAnswer =
  (exists: boolean) =>
  (n: BinaryNode): BinaryNode[] => {
    const phone = getBinaryNodeChild(
      getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(n, "usync"), "list"), "user"),
      "contact",
    )?.content;
    const digits = String(Buffer.isBuffer(phone) ? phone.toString() : phone).replace(/\D/g, "");
    return [
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
                attrs: { jid: `${digits}@s.whatsapp.net` },
                content: [{ tag: "contact", attrs: { type: exists ? "in" : "out" } }],
              },
            ],
          },
        ],
      },
    ];
  };
const isUsync = (n: BinaryNode) => n.attrs.xmlns === "usync";

const labelEvents = (r: AreaRig) =>
  r.events.flatMap((e) => (e.type === "event" && e.kind.startsWith("label.") ? [[e.kind, e.payload] as const] : []));

/** Labels the phone made before (what app-state sync taught the session). */
async function learn(r: AreaRig, labels: { id: string; name: string; color: number; predefinedId?: string }[]) {
  for (const l of labels) r.sock.ev.emit("labels.edit", { ...l, deleted: false });
  await vi.waitFor(async () => expect(await r.ops["labels.list"]!({})).toHaveLength(labels.length));
}

describe("Baileys labels: operations build the app-state patches", () => {
  it("serves every label operation of the contract (the capability table has no Baileys gap for labels)", async () => {
    const r = await openRig();
    const names = Object.keys(labelsOps);
    expect(names).toHaveLength(7);
    for (const name of names) expect(r.ops[name as keyof typeof labelsOps], name).toBeTypeOf("function");
    for (const cap of Object.values(labelsCapabilities)) expect(cap).toEqual({ kinds: "standard" });
  });

  it("create: a label_edit mutation with the next id and the color asked, then label.upsert", async () => {
    const r = await openRig();
    await learn(r, [{ id: "1", name: "Novo cliente", color: 0, predefinedId: "1" }]);
    const created = r.ops["labels.create"]!({ name: "Lead", color: 13 });
    const mutations = await patchSent(r);
    expect(mutations).toEqual([
      { index: ["label_edit", "2"], value: expect.objectContaining({ labelEditAction: { name: "Lead", color: 13 } }) },
    ]);
    expect(await created).toEqual({ id: "2", name: "Lead", color: 13 });
    // Announced once: Baileys decodes its own patch back (emitOwnEvents) and the op records it too.
    const events = labelEvents(r).slice(1);
    expect(events).toEqual([
      ["label.upsert", { id: "2", name: "Lead", color: 13, colorHex: "#f74848", timestamp: expect.any(Number) }],
    ]);
    expect(await r.ops["labels.list"]!({})).toEqual([
      { id: "1", name: "Novo cliente", color: 0 },
      { id: "2", name: "Lead", color: 13 },
    ]);
  });

  it("create without a color takes the first free palette color; ids are never reused", async () => {
    const r = await openRig();
    await learn(r, [
      { id: "1", name: "A", color: 0 },
      { id: "7", name: "B", color: 1 },
    ]);
    r.sock.ev.emit("labels.edit", { id: "7", name: "B", color: 1, deleted: true });
    const created = r.ops["labels.create"]!({ name: "Sem cor" });
    const [m] = await patchSent(r);
    expect(m!.index).toEqual(["label_edit", "8"]);
    expect(m!.value.labelEditAction).toEqual({ name: "Sem cor", color: 1 });
    expect(await created).toEqual({ id: "8", name: "Sem cor", color: 1 });
  });

  it("update: the same label_edit with the color kept and the predefined id carried; unknown is 404 with no call", async () => {
    const r = await openRig();
    await learn(r, [{ id: "1", name: "Novo cliente", color: 0, predefinedId: "1" }]);
    const updated = r.ops["labels.update"]!({ id: "1", name: "Cliente novo" });
    const [m] = await patchSent(r);
    expect(m!.index).toEqual(["label_edit", "1"]);
    expect(m!.value.labelEditAction).toEqual({ name: "Cliente novo", color: 0, predefinedId: 1 });
    expect(await updated).toEqual({ id: "1", name: "Cliente novo", color: 0 });
    expect(labelEvents(r).at(-1)).toEqual([
      "label.upsert",
      { id: "1", name: "Cliente novo", color: 0, colorHex: "#ff9485", timestamp: expect.any(Number) },
    ]);
    const before = (await h.sentNodes()).length;
    await expect(r.ops["labels.update"]!({ id: "99", name: "x" })).rejects.toMatchObject({
      code: "not_found",
      details: { labelId: expect.any(String) },
    });
    await expect(r.ops["labels.delete"]!({ id: "99" })).rejects.toMatchObject({ code: "not_found" });
    expect((await h.sentNodes()).length).toBe(before);
  });

  it("delete: a label_edit with deleted: true (Baileys' way; it has no deleteLabel); its chats untagged first", async () => {
    const r = await openRig();
    await learn(r, [{ id: "3", name: "VIP", color: 1 }]);
    r.sock.ev.emit("labels.association", {
      type: "add",
      association: { type: LabelAssociationType.Chat, chatId: B_JID, labelId: "3" },
    });
    r.sock.ev.emit("labels.association", {
      type: "add",
      association: { type: LabelAssociationType.Chat, chatId: GROUP, labelId: "3" },
    });
    await vi.waitFor(async () => expect(await r.ops["labels.labelChats"]!({ id: "3" })).toHaveLength(2));
    const from = labelEvents(r).length;
    const deleted = r.ops["labels.delete"]!({ id: "3" });
    const [m] = await patchSent(r);
    expect(m!.index).toEqual(["label_edit", "3"]);
    expect(m!.value.labelEditAction).toMatchObject({ deleted: true });
    expect(await deleted).toEqual({});
    expect(labelEvents(r).slice(from)).toEqual([
      ["label.chat.deleted", expect.objectContaining({ labelId: "3", chatId: `${B}@c.us` })],
      ["label.chat.deleted", expect.objectContaining({ labelId: "3", chatId: GROUP })],
      ["label.deleted", { id: "3", name: "VIP", color: 1, colorHex: "#64c4ff", timestamp: expect.any(Number) }],
    ]);
    expect(await r.ops["labels.list"]!({})).toEqual([]);
    await expect(r.ops["labels.labelChats"]!({ id: "3" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("a chat's whole set: the number looked up, label_jid mutations to add the missing and remove the others", async () => {
    const r = await openRig();
    await learn(r, [
      { id: "1", name: "A", color: 0 },
      { id: "2", name: "B", color: 1 },
      { id: "3", name: "C", color: 2 },
    ]);
    // First tagging of this number: the network is asked whether it has an account (its registered JID).
    const first = r.ops["labels.setChatLabels"]!({ chatId: `${B}@c.us`, labelIds: ["1", "2"] });
    const q = await h.answer(r.sock, isUsync, usyncAnswer(true));
    expect(getBinaryNodeChild(getBinaryNodeChild(q, "usync"), "query")).toBeTruthy();
    const adds = [...(await patchSent(r)), ...(await patchSent(r))];
    expect(adds).toEqual([
      {
        index: ["label_jid", "1", B_JID],
        value: expect.objectContaining({ labelAssociationAction: { labeled: true } }),
      },
      {
        index: ["label_jid", "2", B_JID],
        value: expect.objectContaining({ labelAssociationAction: { labeled: true } }),
      },
    ]);
    expect((await first).map((l) => l.id)).toEqual(["1", "2"]);

    // Again with 2 and 3: 3 added, then 1 removed; the chat is known now (no lookup).
    const from = labelEvents(r).length;
    const second = r.ops["labels.setChatLabels"]!({ chatId: `${B}@c.us`, labelIds: ["2", "3"] });
    const changes = [...(await patchSent(r)), ...(await patchSent(r))];
    expect(changes.map((m) => [m.index, m.value.labelAssociationAction?.labeled])).toEqual([
      [["label_jid", "3", B_JID], true],
      [["label_jid", "1", B_JID], false],
    ]);
    expect((await second).map((l) => l.id)).toEqual(["2", "3"]);
    expect(labelEvents(r).slice(from)).toEqual([
      [
        "label.chat.added",
        {
          labelId: "3",
          chatId: `${B}@c.us`,
          chatLid: null,
          label: { id: "3", name: "C", color: 2, colorHex: "#ffd429" },
          timestamp: expect.any(Number),
        },
      ],
      ["label.chat.deleted", expect.objectContaining({ labelId: "1", chatId: `${B}@c.us` })],
    ]);
    expect(await r.ops["labels.chatLabels"]!({ chatId: `${B}@c.us` })).toEqual([
      { id: "2", name: "B", color: 1 },
      { id: "3", name: "C", color: 2 },
    ]);
    expect(await r.ops["labels.labelChats"]!({ id: "3" })).toEqual([`${B}@c.us`]);
  });

  it("unknown chats are 404: a number without an account, a group this number is not in; unknown labels too", async () => {
    const r = await openRig();
    await learn(r, [{ id: "1", name: "A", color: 0 }]);
    const noNumber = r.ops["labels.setChatLabels"]!({ chatId: `${US}@c.us`, labelIds: ["1"] });
    await h.answer(r.sock, isUsync, usyncAnswer(false));
    await expect(noNumber).rejects.toMatchObject({ code: "not_found", details: { chatId: expect.any(String) } });

    const noGroup = r.ops["labels.chatLabels"]!({ chatId: GROUP });
    await h.answer(
      r.sock,
      (n) => n.attrs.xmlns === "w:g2" && n.attrs.to === GROUP,
      () => [{ tag: "error", attrs: { code: "404", text: "item-not-found" } }],
    );
    await expect(noGroup).rejects.toMatchObject({ code: "not_found" });

    const before = (await h.sentNodes()).length;
    const err = await r.ops["labels.setChatLabels"]!({ chatId: GROUP, labelIds: ["1", "42"] }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "not_found", details: { labels: expect.stringContaining("42") } });
    expect((await h.sentNodes()).length).toBe(before);
  });

  it("before the phone shares the app-state key (just paired) a change is 503 with Retry-After, sending nothing", async () => {
    const r = await openRig();
    await learn(r, [{ id: "1", name: "A", color: 0 }]);
    r.sock.authState.creds.myAppStateKeyId = undefined;
    const before = (await h.sentNodes()).length;
    const err = await r.ops["labels.create"]!({ name: "x" }).catch((e) => e);
    expect(err).toMatchObject({ code: "network_unavailable", retryAfter: 5 });
    await expect(r.ops["labels.update"]!({ id: "1", name: "y" })).rejects.toMatchObject({
      code: "network_unavailable",
    });
    expect((await h.sentNodes()).length).toBe(before);
    // Reads and a set that changes nothing need no key.
    expect(await r.ops["labels.list"]!({})).toEqual([{ id: "1", name: "A", color: 0 }]);
  });

  it("a personal account (its platform not the business app) is refused before any call; an unknown platform is let through", async () => {
    const r = await openRig("android");
    const before = (await h.sentNodes()).length;
    for (const call of [
      () => r.ops["labels.list"]!({}),
      () => r.ops["labels.create"]!({ name: "x" }),
      () => r.ops["labels.setChatLabels"]!({ chatId: `${B}@c.us`, labelIds: [] }),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: "network_rejected",
        details: { account: expect.any(String) },
      });
    }
    expect((await h.sentNodes()).length).toBe(before);
    r.sock.authState.creds.platform = undefined;
    expect(await r.ops["labels.list"]!({})).toEqual([]);
  });
});

describe("Baileys labels: notifications become events", () => {
  it("labels.edit: label.upsert when new or changed (a repeat is silent), label.deleted for a known label", async () => {
    const r = await openRig();
    const ev = (l: { id: string; name?: string; color?: number; deleted?: boolean }) =>
      r.sock.ev.emit("labels.edit", { name: "", color: 0, deleted: false, ...l } as never);
    ev({ id: "4", name: "Pago", color: 3 });
    ev({ id: "4", name: "Pago", color: 3 }); // a resync repeats it
    ev({ id: "4", name: "Pago", color: 5 });
    ev({ id: "9", deleted: true }); // never known: nothing to announce
    ev({ id: "4", deleted: true });
    await vi.waitFor(() => expect(labelEvents(r)).toHaveLength(3));
    expect(labelEvents(r)).toEqual([
      ["label.upsert", { id: "4", name: "Pago", color: 3, colorHex: "#dfaef0", timestamp: expect.any(Number) }],
      ["label.upsert", { id: "4", name: "Pago", color: 5, colorHex: "#55ccb3", timestamp: expect.any(Number) }],
      ["label.deleted", { id: "4", name: "Pago", color: 5, colorHex: "#55ccb3", timestamp: expect.any(Number) }],
    ]);
  });

  it("labels.association of chats: added/deleted with the chat by number (a lid shown by number when known); message labels ignored", async () => {
    const r = await openRig();
    await learn(r, [{ id: "5", name: "Retornar", color: 7 }]);
    r.known.set("87654321012345@lid", "5511977776666");
    const assoc = (type: "add" | "remove", chatId: string) =>
      r.sock.ev.emit("labels.association", {
        type,
        association: { type: LabelAssociationType.Chat, chatId, labelId: "5" },
      });
    assoc("add", B_JID);
    assoc("add", "87654321012345@lid");
    assoc("add", "99999999999999@lid");
    r.sock.ev.emit("labels.association", {
      type: "add",
      association: { type: LabelAssociationType.Message, chatId: B_JID, messageId: "3EB0X", labelId: "5" },
    });
    assoc("remove", B_JID);
    assoc("remove", B_JID); // already gone: silent
    await vi.waitFor(() => expect(labelEvents(r).length).toBe(5));
    expect(
      labelEvents(r)
        .slice(1)
        .map(([k, p]) => [k, p.chatId, p.chatLid]),
    ).toEqual([
      ["label.chat.added", `${B}@c.us`, null],
      ["label.chat.added", "5511977776666@c.us", "87654321012345@lid"],
      ["label.chat.added", "99999999999999@lid", "99999999999999@lid"],
      ["label.chat.deleted", `${B}@c.us`, null],
    ]);
    expect(labelEvents(r)[1]![1].label).toEqual({ id: "5", name: "Retornar", color: 7, colorHex: "#d3a91d" });
    expect(await r.ops["labels.chatLabels"]!({ chatId: "5511977776666@c.us" })).toEqual([
      { id: "5", name: "Retornar", color: 7 },
    ]);
    expect(await r.ops["labels.labelChats"]!({ id: "5" })).toEqual(["5511977776666@c.us", "99999999999999@lid"]);
  });

  it("a change made on the phone: server_sync, Baileys resyncs `regular`, the phone's patch becomes label.upsert", async () => {
    const r = await openRig();
    // The phone's patch, encrypted with the account's app-state key as the phone would.
    const { patch } = await encodeSyncdPatch(
      chatModificationToAppPatch({ addLabel: { id: "6", name: "Do celular", color: 9 } }, ""),
      KEY_ID,
      newLTHashState(),
      getKey,
    );
    r.sock.ws.emit("CB:notification", {
      tag: "notification",
      attrs: { id: "n1", type: "server_sync", from: "s.whatsapp.net", t: String(Math.floor(Date.now() / 1000)) },
      content: [{ tag: "collection", attrs: { name: "regular", version: "1" } }],
    } satisfies BinaryNode);
    await h.answer(r.sock, isResync, () => [
      {
        tag: "sync",
        attrs: {},
        content: [
          {
            tag: "collection",
            attrs: { name: "regular", version: "0" },
            content: [
              {
                tag: "patches",
                attrs: {},
                content: [{ tag: "patch", attrs: {}, content: proto.SyncdPatch.encode(patch).finish() }],
              },
            ],
          },
        ],
      },
    ]);
    await vi.waitFor(() => expect(labelEvents(r)).toHaveLength(1));
    expect(labelEvents(r)[0]).toEqual([
      "label.upsert",
      { id: "6", name: "Do celular", color: 9, colorHex: "#d7e752", timestamp: expect.any(Number) },
    ]);
    expect(await r.ops["labels.list"]!({})).toEqual([{ id: "6", name: "Do celular", color: 9 }]);
  });
});
