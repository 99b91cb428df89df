import type { BinaryNode } from "@whiskeysockets/baileys";
import { getBinaryNodeChild, getBinaryNodeChildren } from "@whiskeysockets/baileys";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AreaHarness, areaHarness } from "../../test/area-rig.ts";

/**
 * Groups at Baileys' boundary: the `w:g2` stanzas each operation makes, the network's answers as
 * the results and groups the API gives, and the group notifications as the spec's events.
 */

const GROUP = "120363012345678901@g.us";
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

/** The network's `<group>` of a metadata answer. */
function groupNode(extra: BinaryNode[] = [], participants: { [attr: string]: string }[] = []): BinaryNode {
  return {
    tag: "group",
    attrs: {
      id: GROUP.split("@")[0]!,
      subject: "Equipe",
      creation: "1700000000",
      creator: "5511999999999@s.whatsapp.net",
      s_t: "1",
    },
    content: [
      {
        tag: "description",
        attrs: { id: "d1", t: "1" },
        content: [{ tag: "body", attrs: {}, content: Buffer.from("Vendas") }],
      },
      ...participants.map((attrs) => ({ tag: "participant", attrs })),
      ...extra,
    ],
  };
}

const PARTICIPANTS: { [attr: string]: string }[] = [
  { jid: "5511999999999@s.whatsapp.net", type: "superadmin" },
  { jid: `${B}@s.whatsapp.net`, type: "admin" },
  { jid: D_LID, phone_number: `${C}@s.whatsapp.net` },
];

describe("Baileys groups: operations", () => {
  it("create: <create subject> with the participants; the answer's group with roles; a result per person asked", async () => {
    const r = await h.open();
    const created = r.ops["groups.create"]!({ subject: "Equipe", participants: [B, `${C}@c.us`, "5511955554444"] });
    const q = await h.answer(r.sock, isG2("create", "@g.us"), () => [groupNode([], PARTICIPANTS)]);
    const create = getBinaryNodeChild(q, "create")!;
    expect(create.attrs.subject).toBe("Equipe");
    expect(getBinaryNodeChildren(create, "participant").map((p) => p.attrs.jid)).toEqual([
      `${B}@s.whatsapp.net`,
      `${C}@s.whatsapp.net`,
      "5511955554444@s.whatsapp.net",
    ]);
    // Then the group's metadata, read back.
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode([], PARTICIPANTS)]);
    const out = await created;
    expect(out.results.map((x) => [x.id, x.status])).toEqual([
      [`${B}@c.us`, "ok"],
      [`${C}@c.us`, "ok"],
      ["5511955554444@c.us", "refused"],
    ]);
    expect(out.group).toMatchObject({
      id: GROUP,
      name: "Equipe",
      description: "Vendas",
      owner: "5511999999999@c.us",
      creation: 1700000000,
      participantsCount: 3,
      settings: { messagesAdminOnly: false, infoAdminOnly: false, joinApproval: false, memberAddMode: "admins" },
    });
    // A participant known by lid and number: shown by number, the lid kept (and learnt).
    expect(out.group.participants).toEqual([
      { id: "5511999999999@c.us", phone: "5511999999999", lid: null, pushName: "", role: "superadmin" },
      { id: `${B}@c.us`, phone: B, lid: null, pushName: "", role: "admin" },
      { id: `${C}@c.us`, phone: C, lid: D_LID, pushName: "", role: "member" },
    ]);
    expect(r.known.get(D_LID)).toBe(C);
  });

  it("participants: the network's per-participant codes become results", async () => {
    const r = await h.open();
    const done = r.ops["groups.participants"]!({
      groupId: GROUP,
      action: "add",
      participants: [B, C, "5511955554444", D_LID],
    });
    const q = await h.answer(r.sock, isG2("add", GROUP), (): BinaryNode[] => [
      {
        tag: "add",
        attrs: {},
        content: [
          { tag: "participant", attrs: { jid: `${B}@s.whatsapp.net` } },
          { tag: "participant", attrs: { jid: `${C}@s.whatsapp.net`, error: "403" } },
          { tag: "participant", attrs: { jid: "5511955554444@s.whatsapp.net", error: "404" } },
          { tag: "participant", attrs: { jid: D_LID, error: "409" } },
        ],
      },
    ]);
    expect(getBinaryNodeChildren(getBinaryNodeChild(q, "add"), "participant").map((p) => p.attrs.jid)).toEqual([
      `${B}@s.whatsapp.net`,
      `${C}@s.whatsapp.net`,
      "5511955554444@s.whatsapp.net",
      D_LID,
    ]);
    expect((await done).map((x) => [x.id, x.status])).toEqual([
      [`${B}@c.us`, "ok"],
      [`${C}@c.us`, "privacy"],
      ["5511955554444@c.us", "not_on_network"],
      [D_LID, "already_participant"],
    ]);
    const demote = r.ops["groups.participants"]!({ groupId: GROUP, action: "demote", participants: [B] });
    const dq = await h.answer(r.sock, isG2("demote", GROUP), () => [
      {
        tag: "demote",
        attrs: {},
        content: [{ tag: "participant", attrs: { jid: `${B}@s.whatsapp.net`, error: "404" } }],
      },
    ]);
    expect(dq.attrs.type).toBe("set");
    expect((await demote)[0]!.status).toBe("not_participant");
  });

  it("settings: announcement, locked, join approval and member add mode stanzas; then the settings read back", async () => {
    const r = await h.open();
    const done = r.ops["groups.setSettings"]!({
      groupId: GROUP,
      settings: { messagesAdminOnly: true, infoAdminOnly: false, joinApproval: true, memberAddMode: "all" },
    });
    await h.answer(r.sock, isG2("announcement", GROUP), () => []);
    await h.answer(r.sock, isG2("unlocked", GROUP), () => []);
    const approval = await h.answer(r.sock, isG2("membership_approval_mode", GROUP), () => []);
    expect(
      getBinaryNodeChild(getBinaryNodeChild(approval, "membership_approval_mode"), "group_join")?.attrs.state,
    ).toBe("on");
    const add = await h.answer(r.sock, isG2("member_add_mode", GROUP), () => []);
    expect(Buffer.from(getBinaryNodeChild(add, "member_add_mode")!.content as Uint8Array).toString()).toBe(
      "all_member_add",
    );
    await h.answer(r.sock, isG2("query", GROUP), () => [
      groupNode(
        [
          { tag: "announcement", attrs: {} },
          { tag: "membership_approval_mode", attrs: {}, content: [{ tag: "group_join", attrs: { state: "on" } }] },
          { tag: "member_add_mode", attrs: {}, content: Buffer.from("all_member_add") },
        ],
        PARTICIPANTS,
      ),
    ]);
    expect(await done).toEqual({
      messagesAdminOnly: true,
      infoAdminOnly: false,
      joinApproval: true,
      memberAddMode: "all",
    });
  });

  it("invite: the code as a link; revoke is a set of <invite>", async () => {
    const r = await h.open();
    const got = r.ops["groups.invite"]!({ groupId: GROUP, revoke: false });
    const q = await h.answer(r.sock, isG2("invite", GROUP), () => [
      { tag: "invite", attrs: { code: "AbCdEfGh12345" } },
    ]);
    expect(q.attrs.type).toBe("get");
    expect(await got).toEqual({ code: "AbCdEfGh12345", link: "https://chat.whatsapp.com/AbCdEfGh12345" });
    const revoked = r.ops["groups.invite"]!({ groupId: GROUP, revoke: true });
    const rq = await h.answer(r.sock, isG2("invite", GROUP), () => [
      { tag: "invite", attrs: { code: "NewCode98765" } },
    ]);
    expect(rq.attrs.type).toBe("set");
    expect((await revoked).code).toBe("NewCode98765");
  });
});

describe("Baileys groups: the server's refusals", () => {
  // The server answers `<error code text/>`; Baileys throws it with the code in `data` (status 500).
  const error = (code: string, text: string) => () => [{ tag: "error", attrs: { code, text } }];

  it("an unknown group (404) or one this number left (403) is not_found, not a refusal of the network", async () => {
    const r = await h.open();
    for (const [code, text] of [
      ["404", "item-not-found"],
      ["403", "forbidden"],
    ] as const) {
      const got = r.ops["groups.get"]!({ groupId: GROUP });
      await h.answer(r.sock, isG2("query", GROUP), error(code, text));
      await expect(got).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("an invite that is unknown, revoked or expired (404, 406, 410) is not_found", async () => {
    const r = await h.open();
    for (const code of ["404", "406", "410"]) {
      const got = r.ops["groups.invitePreview"]!({ code: "AbCdEfGh12345" });
      await h.answer(r.sock, isG2("invite"), error(code, "not-acceptable"));
      await expect(got).rejects.toMatchObject({ code: "not_found" });
    }
  });
});

describe("Baileys groups: notifications", () => {
  it("participants, updates and join requests become the spec's events; this number added is group.join", async () => {
    const r = await h.open();
    r.known.set(D_LID, C);
    r.sock.ev.emit("groups.update", [{ id: GROUP, subject: "Equipe Sul", author: `${B}@s.whatsapp.net` }]);
    r.sock.ev.emit("group-participants.update", {
      id: GROUP,
      author: `${B}@s.whatsapp.net`,
      action: "add",
      participants: [{ id: D_LID }, { id: "5511999999999@s.whatsapp.net" }],
    });
    r.sock.ev.emit("group.join-request", {
      id: GROUP,
      author: `${B}@s.whatsapp.net`,
      participant: D_LID,
      action: "created",
      method: "invite_link",
    });
    r.sock.ev.flush();
    await expect.poll(() => r.events.filter((e) => e.type === "event").length).toBe(4);
    const events = r.events.flatMap((e) => (e.type === "event" ? [[e.kind, e.payload] as const] : []));
    expect(events.map(([k]) => k)).toEqual(["group.update", "group.participants", "group.join", "group.join_request"]);
    expect(events[0]![1]).toMatchObject({
      chatId: GROUP,
      changed: "subject",
      subject: "Equipe Sul",
      by: { id: `${B}@c.us` },
    });
    expect(events[1]![1]).toMatchObject({
      chatId: GROUP,
      group: { id: GROUP, name: "Equipe Sul" },
      action: "add",
      participants: [
        { id: `${C}@c.us`, phone: C, lid: D_LID },
        { id: "5511999999999@c.us", phone: "5511999999999" },
      ],
    });
    expect(events[3]![1]).toMatchObject({
      action: "created",
      method: "invite_link",
      requester: { id: `${C}@c.us`, lid: D_LID },
    });
  });

  it("this number removed by an admin is group.leave with reason removed (a group it can no longer read stays unnamed)", async () => {
    const r = await h.open();
    r.sock.ev.emit("group-participants.update", {
      id: GROUP,
      author: `${B}@s.whatsapp.net`,
      action: "remove",
      participants: [{ id: "5511999999999@s.whatsapp.net" }],
    });
    r.sock.ev.flush();
    // Not named since the process started: asked of the network, which no longer shows it to us.
    await h.answer(r.sock, isG2("query", GROUP), () => [{ tag: "error", attrs: { code: "403", text: "forbidden" } }]);
    await expect.poll(() => r.events.some((e) => e.type === "event" && e.kind === "group.leave")).toBe(true);
    const leave = r.events.find((e) => e.type === "event" && e.kind === "group.leave");
    expect(leave && leave.type === "event" ? leave.payload : null).toMatchObject({
      reason: "removed",
      group: { id: GROUP, name: "" },
    });
  });

  it("a group not seen since the process started is named from its metadata, asked once", async () => {
    const r = await h.open();
    const named = (kind: string) =>
      r.events.flatMap((e) => (e.type === "event" && e.kind === kind ? [e.payload.group] : []));
    r.sock.ev.emit("group-participants.update", {
      id: GROUP,
      author: `${B}@s.whatsapp.net`,
      action: "promote",
      participants: [{ id: `${C}@s.whatsapp.net` }],
    });
    r.sock.ev.flush();
    await h.answer(r.sock, isG2("query", GROUP), () => [groupNode([], PARTICIPANTS)]);
    await expect.poll(() => named("group.participants")).toEqual([{ id: GROUP, name: "Equipe" }]);
    // Then from what it learnt: a settings change and a join request, no query.
    r.sock.ev.emit("groups.update", [{ id: GROUP, announce: true, author: `${B}@s.whatsapp.net` }]);
    r.sock.ev.emit("group.join-request", {
      id: GROUP,
      author: `${B}@s.whatsapp.net`,
      participant: D_LID,
      action: "created",
      method: "invite_link",
    });
    r.sock.ev.flush();
    await expect
      .poll(() => [...named("group.update"), ...named("group.join_request")])
      .toEqual([
        { id: GROUP, name: "Equipe" },
        { id: GROUP, name: "Equipe" },
      ]);
    expect((await h.sentNodes()).filter(isG2("query", GROUP))).toHaveLength(1);
  });
});
