import { ApiError, labelsCapabilities, labelsOps } from "@gw/contracts";
import { type BinaryNode, getBinaryNodeChild } from "@whiskeysockets/baileys";
import { LabelAssociationType } from "@whiskeysockets/baileys/lib/Types/LabelAssociation.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, areaHarness, isUsync } from "../../test/area-rig.ts";
import { labelEvents, labelsRig, learn, patchSent } from "../../test/labels-rig.ts";

/**
 * Labels at Baileys' boundary: each operation's app-state patch (the `w:sync:app:state` stanza
 * Baileys encrypts with the account's app-state key, decoded back here with that key into its
 * `label_edit` / `label_jid` mutations) and the chat lookups it needs. The notifications are in
 * labels-events.test.ts; the shared set-up in test/labels-rig.ts.
 */

const B = "5511988887777";
const B_JID = `${B}@s.whatsapp.net`;
const US = "14155550100"; // no ninth-digit twin: one number lookup
const GROUP = "120363012345678901@g.us";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

/** A rig whose account is on the business app (`smba`) and holds an app-state key (test/labels-rig.ts). */
const openRig = (platform?: string) => labelsRig(h, platform);

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
    const mutations = await patchSent(h, r);
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
    const [m] = await patchSent(h, r);
    expect(m!.index).toEqual(["label_edit", "8"]);
    expect(m!.value.labelEditAction).toEqual({ name: "Sem cor", color: 1 });
    expect(await created).toEqual({ id: "8", name: "Sem cor", color: 1 });
  });

  it("update: the same label_edit with the color kept and the predefined id carried; unknown is 404 with no call", async () => {
    const r = await openRig();
    await learn(r, [{ id: "1", name: "Novo cliente", color: 0, predefinedId: "1" }]);
    const updated = r.ops["labels.update"]!({ id: "1", name: "Cliente novo" });
    const [m] = await patchSent(h, r);
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
    const [m] = await patchSent(h, r);
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
    const adds = [...(await patchSent(h, r)), ...(await patchSent(h, r))];
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
    const changes = [...(await patchSent(h, r)), ...(await patchSent(h, r))];
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
