import {
  type BinaryNode,
  chatModificationToAppPatch,
  encodeSyncdPatch,
  newLTHashState,
  proto,
} from "@whiskeysockets/baileys";
import { LabelAssociationType } from "@whiskeysockets/baileys/lib/Types/LabelAssociation.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, areaHarness } from "../../test/area-rig.ts";
import { getKey, isResync, KEY_ID, labelEvents, labelsRig, learn } from "../../test/labels-rig.ts";

/**
 * Labels' app-state notifications at Baileys' boundary (`labels.edit`, `labels.association`, and
 * a phone's patch arriving through a `server_sync` notification) as the spec's events, in order.
 * The operations are in labels.test.ts; the shared set-up in test/labels-rig.ts.
 */

const B = "5511988887777";
const B_JID = `${B}@s.whatsapp.net`;

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

/** A rig whose account is on the business app (`smba`) and holds an app-state key (test/labels-rig.ts). */
const openRig = (platform?: string) => labelsRig(h, platform);

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
