import type { AnyMessageContent, BinaryNode } from "@whiskeysockets/baileys";
import {
  generateWAMessageContent,
  generateWAMessageFromContent,
  getBinaryNodeChild,
  getBinaryNodeChildren,
} from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AreaHarness, areaHarness } from "../../test/area-rig.ts";
import { ONE_PIXEL_PNG as PNG } from "../../test/testing.ts";

/**
 * Groups at Baileys' boundary, the operations groups.test.ts leaves out: list, leave, subject,
 * description, picture, join and the look at an invite, join requests, and the invite a privacy
 * refusal carries (v4). Each: the `w:g2` (or picture) stanza Baileys builds, and how the network's
 * answer becomes the API's.
 */

const GROUP = "120363012345678901@g.us";
const OTHER = "120363099999999999@g.us";
const B = "5511988887777";
const C = "5511977776666";
const D_LID = "87654321012345@lid";

let h: AreaHarness;
beforeAll(async () => {
  h = await areaHarness();
});
afterEach(() => h.reset());
afterAll(() => h?.close());

const isG2 = (tag: string, to?: string) => (n: BinaryNode) =>
  n.attrs.xmlns === "w:g2" && (!to || n.attrs.to === to) && getBinaryNodeChildren(n, tag).length > 0;
const text = (n: BinaryNode | undefined) => Buffer.from((n?.content ?? []) as Uint8Array).toString();

function groupNode(id: string, subject: string, extra: BinaryNode[] = [], attrs: Record<string, string> = {}) {
  return {
    tag: "group",
    attrs: { id: id.split("@")[0]!, subject, creation: "1700000000", creator: `${B}@s.whatsapp.net`, ...attrs },
    content: [
      {
        tag: "description",
        attrs: { id: "DESC1", t: "1" },
        content: [{ tag: "body", attrs: {}, content: Buffer.from("Vendas") }],
      },
      { tag: "participant", attrs: { jid: "5511999999999@s.whatsapp.net" } },
      { tag: "participant", attrs: { jid: `${B}@s.whatsapp.net`, type: "superadmin" } },
      { tag: "participant", attrs: { jid: D_LID, phone_number: `${C}@s.whatsapp.net`, type: "admin" } },
      ...extra,
    ],
  } satisfies BinaryNode;
}

describe("Baileys groups: list and leave", () => {
  it("list: one <participating> query; every group with its participants; the echo Baileys emits is no event", async () => {
    const r = await h.open();
    const listed = r.ops["groups.list"]!({});
    const q = await h.answer(r.sock, isG2("participating", "@g.us"), () => [
      {
        tag: "groups",
        attrs: {},
        content: [groupNode(GROUP, "Equipe"), groupNode(OTHER, "Família", [{ tag: "announcement", attrs: {} }])],
      },
    ]);
    expect(q.attrs.type).toBe("get");
    const asked = getBinaryNodeChild(q, "participating")!;
    expect(getBinaryNodeChildren(asked, "participants")).toHaveLength(1);
    expect(getBinaryNodeChildren(asked, "description")).toHaveLength(1);
    const out = await listed;
    expect(out.map((g) => [g.id, g.name, g.participantsCount, g.settings.messagesAdminOnly])).toEqual([
      [GROUP, "Equipe", 3, false],
      [OTHER, "Família", 3, true],
    ]);
    expect(out[0]).toMatchObject({ description: "Vendas", owner: `${B}@c.us`, creation: 1700000000 });
    expect(out[0]!.participants.map((p) => [p.id, p.lid, p.role])).toEqual([
      ["5511999999999@c.us", null, "member"],
      [`${B}@c.us`, null, "superadmin"],
      [`${C}@c.us`, D_LID, "admin"],
    ]);
    // Baileys emits the whole list as `groups.update`: not a change. A real change after it is the only event.
    r.sock.ev.emit("groups.update", [{ id: OTHER, desc: "Só a família", author: `${B}@s.whatsapp.net` }]);
    await expect.poll(() => r.events.filter((e) => e.type === "event").length).toBe(1);
    const [only] = r.events.flatMap((e) => (e.type === "event" ? [e] : []));
    // Named from the list it read: no metadata query for it.
    expect(only).toMatchObject({
      kind: "group.update",
      payload: { chatId: OTHER, group: { id: OTHER, name: "Família" }, changed: "description" },
    });
  });

  it("leave: a <leave> of the group sent to @g.us", async () => {
    const r = await h.open();
    const done = r.ops["groups.leave"]!({ groupId: GROUP });
    const q = await h.answer(r.sock, isG2("leave", "@g.us"), () => []);
    expect(q.attrs.type).toBe("set");
    expect(getBinaryNodeChildren(getBinaryNodeChild(q, "leave"), "group").map((g) => g.attrs.id)).toEqual([GROUP]);
    expect(await done).toEqual({ success: true });
  });
});

describe("Baileys groups: subject, description, picture", () => {
  it("subject: a <subject> with the text", async () => {
    const r = await h.open();
    const done = r.ops["groups.setSubject"]!({ groupId: GROUP, subject: "Equipe Sul ☀" });
    const q = await h.answer(r.sock, isG2("subject", GROUP), () => []);
    expect(q.attrs.type).toBe("set");
    expect(text(getBinaryNodeChild(q, "subject"))).toBe("Equipe Sul ☀");
    expect(await done).toEqual({ success: true });
  });

  it("description: read first (the current one's id goes as prev), then set; empty deletes it", async () => {
    const r = await h.open();
    const set = r.ops["groups.setDescription"]!({ groupId: GROUP, description: "Só vendas" });
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode(GROUP, "Equipe")]);
    const q = await h.answer(r.sock, isG2("description", GROUP), () => []);
    const desc = getBinaryNodeChild(q, "description")!;
    expect(desc.attrs).toMatchObject({ prev: "DESC1", id: expect.any(String) });
    expect(desc.attrs).not.toHaveProperty("delete");
    expect(text(getBinaryNodeChild(desc, "body"))).toBe("Só vendas");
    expect(await set).toEqual({ success: true });

    const removed = r.ops["groups.setDescription"]!({ groupId: GROUP, description: "" });
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode(GROUP, "Equipe")]);
    const rq = await h.answer(r.sock, isG2("description", GROUP), () => []);
    const del = getBinaryNodeChild(rq, "description")!;
    expect(del.attrs).toEqual({ delete: "true", prev: "DESC1" });
    expect(getBinaryNodeChild(del, "body")).toBeUndefined();
    expect(await removed).toEqual({ success: true });
  });

  it("picture: the group's picture iq (target the group) with a JPEG; removal without a picture", async () => {
    const r = await h.open();
    const isPic = (n: BinaryNode) => n.tag === "iq" && n.attrs.xmlns === "w:profile:picture";
    const set = r.ops["groups.setPicture"]!({
      groupId: GROUP,
      picture: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    const q = await h.answer(r.sock, isPic, () => []);
    expect(q.attrs).toMatchObject({ type: "set", target: GROUP });
    const picture = getBinaryNodeChild(q, "picture")!;
    expect(picture.attrs).toEqual({ type: "image" });
    expect(Buffer.from(picture.content as Uint8Array).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(await set).toEqual({ success: true });

    const removed = r.ops["groups.setPicture"]!({ groupId: GROUP, picture: null });
    const rq = await h.answer(r.sock, isPic, () => []);
    expect(rq.attrs).toMatchObject({ type: "set", target: GROUP });
    expect(rq.content ?? []).toEqual([]);
    expect(await removed).toEqual({ success: true });
  });
});

describe("Baileys groups: invites", () => {
  it("join: an <invite code> set to @g.us; the group's id, or pending approval when the network gives none", async () => {
    const r = await h.open();
    const joined = r.ops["groups.join"]!({ code: "AbCdEfGh12345" });
    const q = await h.answer(r.sock, isG2("invite", "@g.us"), () => [{ tag: "group", attrs: { jid: GROUP } }]);
    expect(q.attrs.type).toBe("set");
    expect(getBinaryNodeChild(q, "invite")!.attrs).toEqual({ code: "AbCdEfGh12345" });
    expect(await joined).toEqual({ groupId: GROUP, status: "joined" });

    const pending = r.ops["groups.join"]!({ code: "ZzYyXx98765" });
    await h.answer(r.sock, isG2("invite", "@g.us"), () => []);
    expect(await pending).toEqual({ groupId: "", status: "pending_approval" });
  });

  it("invitePreview: an <invite code> get; the group the invite leads to, before joining", async () => {
    const r = await h.open();
    const seen = r.ops["groups.invitePreview"]!({ code: "AbCdEfGh12345" });
    const q = await h.answer(r.sock, isG2("invite", "@g.us"), () => [
      groupNode(GROUP, "Equipe", [{ tag: "membership_approval_mode", attrs: {} }], {
        size: "42",
        creator: D_LID,
        creator_pn: `${C}@s.whatsapp.net`,
      }),
    ]);
    expect(q.attrs.type).toBe("get");
    expect(getBinaryNodeChild(q, "invite")!.attrs).toEqual({ code: "AbCdEfGh12345" });
    expect(await seen).toEqual({
      id: GROUP,
      name: "Equipe",
      description: "Vendas",
      size: 42,
      creation: 1700000000,
      owner: `${C}@c.us`,
      joinApproval: true,
    });
  });

  it("add with inviteOnPrivacy: a privacy refusal's <add_request> is sent to the person as the group's invite", async () => {
    const r = await h.open();
    const sends: { jid: string; content: AnyMessageContent; built: unknown }[] = [];
    vi.spyOn(r.sock, "sendMessage").mockImplementation(async (jid, content) => {
      // Baileys' own content generation (what it would relay), not relayed.
      const built = generateWAMessageFromContent(jid, await generateWAMessageContent(content, {} as never), {
        userJid: "5511999999999@s.whatsapp.net",
      });
      sends.push({ jid, content, built: built.message });
      return built;
    });
    const done = r.ops["groups.participants"]!({
      groupId: GROUP,
      action: "add",
      participants: [B, C],
      inviteOnPrivacy: true,
    });
    await h.answer(r.sock, isG2("add", GROUP), (): BinaryNode[] => [
      {
        tag: "add",
        attrs: {},
        content: [
          { tag: "participant", attrs: { jid: `${B}@s.whatsapp.net` } },
          {
            tag: "participant",
            attrs: { jid: `${C}@s.whatsapp.net`, error: "403" },
            content: [{ tag: "add_request", attrs: { code: "V4Code123", expiration: "1700600000" } }],
          },
        ],
      },
    ]);
    // The group's subject for the invite, read once.
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode(GROUP, "Equipe")]);
    expect((await done).map((x) => [x.id, x.status, x.invited])).toEqual([
      [`${B}@c.us`, "ok", undefined],
      [`${C}@c.us`, "privacy", true],
    ]);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.jid).toBe(`${C}@s.whatsapp.net`);
    expect(sends[0]!.built).toMatchObject({
      groupInviteMessage: {
        groupJid: GROUP,
        inviteCode: "V4Code123",
        inviteExpiration: 1700600000,
        groupName: "Equipe",
        caption: "Convite para entrar no grupo",
      },
    });
  });

  it("add with inviteOnPrivacy: a refusal without an invite is answered as is, nothing sent", async () => {
    const r = await h.open();
    const send = vi.spyOn(r.sock, "sendMessage");
    const done = r.ops["groups.participants"]!({
      groupId: GROUP,
      action: "add",
      participants: [C],
      inviteOnPrivacy: true,
    });
    await h.answer(r.sock, isG2("add", GROUP), () => [
      { tag: "add", attrs: {}, content: [{ tag: "participant", attrs: { jid: `${C}@s.whatsapp.net`, error: "403" } }] },
    ]);
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode(GROUP, "Equipe")]);
    expect(await done).toEqual([expect.objectContaining({ id: `${C}@c.us`, status: "privacy", invited: false })]);
    expect(send).not.toHaveBeenCalled();
  });
});

describe("Baileys groups: join requests", () => {
  it("requests: <membership_approval_requests>; each requester as a contact with when it asked", async () => {
    const r = await h.open();
    const listed = r.ops["groups.requests"]!({ groupId: GROUP });
    const q = await h.answer(r.sock, isG2("membership_approval_requests", GROUP), (): BinaryNode[] => [
      {
        tag: "membership_approval_requests",
        attrs: {},
        content: [
          {
            tag: "membership_approval_request",
            attrs: { jid: D_LID, phone_number: `${C}@s.whatsapp.net`, request_time: "1700000500" },
          },
          { tag: "membership_approval_request", attrs: { jid: `${B}@s.whatsapp.net`, request_time: "1700000600" } },
        ],
      },
    ]);
    expect(q.attrs.type).toBe("get");
    expect(await listed).toEqual([
      { id: `${C}@c.us`, phone: C, lid: D_LID, pushName: "", requestedAt: 1700000500 },
      { id: `${B}@c.us`, phone: B, lid: null, pushName: "", requestedAt: 1700000600 },
    ]);
    expect(r.known.get(D_LID)).toBe(C);
  });

  it("approve and reject: <membership_requests_action> with the people; a result each", async () => {
    const r = await h.open();
    for (const action of ["approve", "reject"] as const) {
      const done = r.ops["groups.answerRequests"]!({ groupId: GROUP, action, participants: [B, C] });
      const q = await h.answer(r.sock, isG2("membership_requests_action", GROUP), (): BinaryNode[] => [
        {
          tag: "membership_requests_action",
          attrs: {},
          content: [
            {
              tag: action,
              attrs: {},
              content: [
                { tag: "participant", attrs: { jid: `${B}@s.whatsapp.net` } },
                { tag: "participant", attrs: { jid: `${C}@s.whatsapp.net`, error: "404" } },
              ],
            },
          ],
        },
      ]);
      expect(q.attrs.type).toBe("set");
      const asked = getBinaryNodeChild(getBinaryNodeChild(q, "membership_requests_action"), action)!;
      expect(getBinaryNodeChildren(asked, "participant").map((p) => p.attrs.jid)).toEqual([
        `${B}@s.whatsapp.net`,
        `${C}@s.whatsapp.net`,
      ]);
      expect(await done).toEqual([
        { id: `${B}@c.us`, status: "ok", message: "feito" },
        { id: `${C}@c.us`, status: "not_participant", message: "sem pedido de entrada" },
      ]);
    }
  });
});
