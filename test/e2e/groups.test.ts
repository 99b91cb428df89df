// Groups end to end on simnet: create, read, administer, participants with per-participant
// results, invites and approvals, group events (from the API and from the phones), ack per
// participant, the stored list — real HTTP, Redis, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962220001" }; // the instance under test
const B = "5531962220002";
const C = "5531962220003";
const D = "5531962220004"; // privacy: nobody adds them
const E = "5531962220005"; // asks to join
const F = "5531962220006"; // asks to join, refused
const NOBODY = "5531962229999"; // no account

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const phoneActs = async (phone: string, op: string, args: unknown) => {
  const res = await c.sim("POST", `/simnet/phones/${phone}/groups`, { op, args });
  return ((await expectJson(res)) as { result: any }).result;
};
async function eventsOf(kind: string, match: (p: Record<string, any>) => boolean = () => true, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await c.events(a.id, kind)).map((e) => e.payload as Record<string, any>).filter(match);
    if (found.length > 0) return found;
    if (Date.now() > until) throw new Error(`no ${kind} matched`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  c = await startCluster();
  const names: Record<string, string> = { [B]: "Bruno", [C]: "Carla" };
  for (const phone of [B, C, D, E, F]) {
    await c.sim("POST", "/simnet/phones", { phone, autoRead: 1, ...(names[phone] ? { pushName: names[phone] } : {}) });
  }
  await c.sim("PUT", `/simnet/phones/${D}/privacy`, { groupAdd: "nobody" });
  const inst = await c.createInstance();
  Object.assign(a, inst);
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
});
afterAll(() => c?.close());

let group = "";

describe("create and read", () => {
  it("creates a group with a result per participant; the creator is its superadmin", async () => {
    const res = await api("/groups", {
      method: "POST",
      json: { subject: "Equipe", participants: [B, `${C}@c.us`, D, NOBODY], description: "Vendas" },
    });
    const out = await expectJson<{ group: Record<string, any>; results: { id: string; status: string }[] }>(res, 201);
    group = out.group.id;
    expect(group).toMatch(/^\d+@g\.us$/);
    expect(out.results.map((r) => [r.id, r.status])).toEqual([
      [`${B}@c.us`, "ok"],
      [`${C}@c.us`, "ok"],
      [`${D}@c.us`, "privacy"],
      [`${NOBODY}@c.us`, "not_on_network"],
    ]);
    expect(out.group).toMatchObject({
      name: "Equipe",
      description: "Vendas",
      owner: `${a.phone}@c.us`,
      participantsCount: 3,
      settings: { messagesAdminOnly: false, infoAdminOnly: false, joinApproval: false, memberAddMode: "admins" },
    });
    const roles = Object.fromEntries(out.group.participants.map((p: any) => [p.phone, p.role]));
    expect(roles).toEqual({ [a.phone]: "superadmin", [B]: "member", [C]: "member" });
    const [join] = await eventsOf("group.join", (p) => p.group?.id === group);
    expect(join).toMatchObject({ chatId: group, group: { id: group, name: "Equipe" }, by: { id: `${a.phone}@c.us` } });
    const [added] = await eventsOf("group.participants", (p) => p.chatId === group && p.action === "add");
    expect(added!.participants.map((p: any) => p.phone).sort()).toEqual([B, C].sort());
  });

  it("reads by id in both forms, lists and counts; unknown and malformed ids", async () => {
    const bare = group.split("@")[0];
    const byBare = await expectJson<Record<string, any>>(await api(`/groups/${bare}`));
    expect(byBare.id).toBe(group);
    expect(byBare.picture).toMatch(/\/v1\/avatars\//);
    // Participants are contacts: number, lid and the name each shows.
    const lidOf = async (phone: string) =>
      ((await expectJson(await c.sim("GET", `/simnet/phones/${phone}`))) as { lid: string }).lid;
    const bruno = byBare.participants.find((p: any) => p.phone === B);
    expect(bruno).toEqual({ id: `${B}@c.us`, phone: B, lid: await lidOf(B), pushName: "Bruno", role: "member" });
    const carla = (await expectJson<any[]>(await api(`/groups/${group}/participants`))).find((p) => p.phone === C);
    expect(carla).toMatchObject({ id: `${C}@c.us`, lid: await lidOf(C), pushName: "Carla" });
    const list = await expectJson<Record<string, any>[]>(await api("/groups"));
    expect(list.map((g) => g.id)).toContain(group);
    expect((await expectJson<{ count: number }>(await api("/groups/count"))).count).toBe(list.length);
    await expectError(await api("/groups/1203630000000000001@g.us"), 404, "not_found");
    expect((await expectError(await api("/groups/nope"), 422, "validation_error")).error.details).toHaveProperty(
      "groupId",
    );
    await expectError(
      await api("/groups", { method: "POST", json: { subject: "", participants: [B] } }),
      422,
      "validation_error",
    );
    await expectError(
      await api("/groups", { method: "POST", json: { subject: "x", participants: ["abc"] } }),
      422,
      "validation_error",
    );
  });
});

describe("administer", () => {
  it("subject, description and picture: the participants see them, events say what changed", async () => {
    await expectJson(await api(`/groups/${group}/subject`, { method: "PUT", json: { subject: "Equipe Sul" } }));
    await expectJson(await api(`/groups/${group}/description`, { method: "PUT", json: { description: "Só vendas" } }));
    await expectJson(
      await api(`/groups/${group}/picture`, {
        method: "PUT",
        json: { file: { data: PNG.toString("base64"), mimetype: "image/png" } },
      }),
    );
    const seenByB = await phoneActs(B, "groups.get", { groupId: group });
    expect(seenByB).toMatchObject({ name: "Equipe Sul", description: "Só vendas" });
    // Each change is its own event; they may still be on their way when the first is seen.
    for (const changed of ["subject", "description", "picture"]) {
      await eventsOf("group.update", (p) => p.chatId === group && p.changed === changed);
    }
    const g = await expectJson<Record<string, any>>(await api(`/groups/${group}`));
    const link = new URL(g.picture);
    const pic = await c.request(link.pathname + link.search);
    expect(Buffer.from(await pic.arrayBuffer()).equals(PNG)).toBe(true);
    await expectJson(await api(`/groups/${group}/picture`, { method: "DELETE" }));
    const gone = await c.request(link.pathname + link.search);
    expect(gone.status).toBe(404);
  });

  it("settings: only sent fields change; a member may not change them", async () => {
    const s = await expectJson(
      await api(`/groups/${group}/settings`, {
        method: "PATCH",
        json: { messagesAdminOnly: true, joinApproval: true },
      }),
    );
    expect(s).toEqual({ messagesAdminOnly: true, infoAdminOnly: false, joinApproval: true, memberAddMode: "admins" });
    expect(await expectJson(await api(`/groups/${group}/settings`))).toEqual(s);
    const byMember = await c.sim("POST", `/simnet/phones/${B}/groups`, {
      op: "groups.settings",
      args: { groupId: group, settings: { infoAdminOnly: true } },
    });
    expect(byMember.status).toBe(403);
    await expectJson(await api(`/groups/${group}/settings`, { method: "PATCH", json: { messagesAdminOnly: false } }));
  });

  it("participants: promote, demote, remove, with results; the creator cannot be removed by another admin", async () => {
    const promote = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/participants/promote`, { method: "POST", json: { participants: [B, NOBODY] } }),
    );
    expect(promote.results.map((r) => r.status)).toEqual(["ok", "not_on_network"]);
    const parts = await expectJson<any[]>(await api(`/groups/${group}/participants`));
    expect(parts.find((p) => p.phone === B).role).toBe("admin");
    const refused = await phoneActs(B, "groups.participants", {
      groupId: group,
      action: "remove",
      participants: [a.phone],
    });
    expect(refused[0].status).toBe("refused");
    // An admin on the phone renames the group: the instance hears it, by B.
    await phoneActs(B, "groups.subject", { groupId: group, subject: "Equipe Norte" });
    const [byB] = await eventsOf("group.update", (p) => p.chatId === group && p.subject === "Equipe Norte");
    expect(byB!.by).toMatchObject({ id: `${B}@c.us`, phone: B });
    const removed = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/participants/remove`, { method: "POST", json: { participants: [C, D] } }),
    );
    expect(removed.results.map((r) => r.status)).toEqual(["ok", "not_participant"]);
    const [rm] = await eventsOf("group.participants", (p) => p.chatId === group && p.action === "remove");
    expect(rm!.participants.map((p: any) => p.phone)).toEqual([C]);
    await expectJson(
      await api(`/groups/${group}/participants/demote`, { method: "POST", json: { participants: [B] } }),
    );
    const again = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/participants/add`, {
        method: "POST",
        json: { participants: [C, B, D], inviteOnPrivacy: true },
      }),
    );
    expect(again.results).toEqual([
      expect.objectContaining({ status: "ok" }),
      expect.objectContaining({ status: "already_participant" }),
      expect.objectContaining({ status: "privacy", invited: true }),
    ]);
  });
});

describe("invites and approvals", () => {
  it("invite code and link, preview, revoke; a request to join, listed and approved", async () => {
    const inv = await expectJson<{ code: string; link: string }>(await api(`/groups/${group}/invite`));
    expect(inv.link).toBe(`https://chat.whatsapp.com/${inv.code}`);
    const preview = await expectJson<Record<string, any>>(await api(`/groups/invite/${inv.code}`));
    expect(preview).toMatchObject({ id: group, name: "Equipe Norte", joinApproval: true });
    // E asks to join by the link (the group approves who joins).
    const asked = await phoneActs(E, "groups.join", { code: inv.code });
    expect(asked.status).toBe("pending_approval");
    const [request] = await eventsOf("group.join_request", (p) => p.chatId === group);
    expect(request!.requester).toMatchObject({ phone: E });
    const pending = await expectJson<any[]>(await api(`/groups/${group}/requests`));
    expect(pending.map((r) => r.phone)).toEqual([E]);
    const approved = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/requests/approve`, { method: "POST", json: { participants: [E] } }),
    );
    expect(approved.results[0].status).toBe("ok");
    await eventsOf(
      "group.participants",
      (p) => p.chatId === group && p.action === "add" && p.participants.some((x: any) => x.phone === E),
    );
    const revoked = await expectJson<{ code: string }>(await api(`/groups/${group}/invite/revoke`, { method: "POST" }));
    expect(revoked.code).not.toBe(inv.code);
    await expectError(await api(`/groups/invite/${inv.code}`), 404, "not_found");
  });

  it("a request rejected: the person stays out, the request is gone; rejecting it again is not_participant", async () => {
    const inv = await expectJson<{ code: string }>(await api(`/groups/${group}/invite`));
    expect((await phoneActs(F, "groups.join", { code: inv.code })).status).toBe("pending_approval");
    await eventsOf("group.join_request", (p) => p.chatId === group && p.requester?.phone === F);
    expect((await expectJson<any[]>(await api(`/groups/${group}/requests`))).map((r) => r.phone)).toEqual([F]);
    const rejected = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/requests/reject`, { method: "POST", json: { participants: [F] } }),
    );
    expect(rejected.results).toEqual([{ id: `${F}@c.us`, status: "ok", message: expect.any(String) }]);
    expect(await expectJson<any[]>(await api(`/groups/${group}/requests`))).toEqual([]);
    const parts = await expectJson<any[]>(await api(`/groups/${group}/participants`));
    expect(parts.map((p) => p.phone)).not.toContain(F);
    const again = await expectJson<{ results: any[] }>(
      await api(`/groups/${group}/requests/reject`, { method: "POST", json: { participants: [`${F}@c.us`] } }),
    );
    expect(again.results[0]).toMatchObject({ status: "not_participant" });
    await expectError(
      await api(`/groups/${group}/requests/reject`, { method: "POST", json: { participants: [] } }),
      422,
      "validation_error",
    );
  });

  it("joins another group by its link, and leaves it", async () => {
    const other = await phoneActs(B, "groups.create", { subject: "Do B", participants: [C] });
    const inv = await phoneActs(B, "groups.invite", { groupId: other.group.id });
    const joined = await expectJson(await api("/groups/join", { method: "POST", json: { code: inv.link } }));
    expect(joined).toEqual({ groupId: other.group.id, status: "joined" });
    await eventsOf("group.participants", (p) => p.chatId === other.group.id && p.action === "add");
    await expectJson(await api(`/groups/${other.group.id}/leave`, { method: "POST" }));
    const [left] = await eventsOf("group.leave", (p) => p.chatId === other.group.id);
    expect(left!.reason).toBe("left");
    const list = await expectJson<Record<string, any>[]>(await api("/groups?refresh=true"));
    expect(list.map((g) => g.id)).not.toContain(other.group.id);
    await expectError(await api(`/groups/${other.group.id}`), 404, "not_found");
  });
});

describe("acks per participant", () => {
  it("message.ack.group for each participant that received and read our message", async () => {
    const res = await api("/messages/text", { method: "POST", json: { chatId: group, text: "Bom dia, equipe" } });
    const sent = await expectJson<{ id: string }>(res, 201);
    const acks = await eventsOf("message.ack.group", (p) => p.id === sent.id && p.status === "read", 15_000);
    expect(acks[0]).toMatchObject({ chatId: group, participant: { phone: expect.any(String) } });
    // Each participant reads on its own clock: the first "read" above says nothing of the others'.
    const byPhone = async () => {
      const statuses = (await c.events(a.id, "message.ack.group"))
        .map((e) => e.payload as any)
        .filter((p) => p.id === sent.id);
      const m = new Map<string, string[]>();
      for (const p of statuses) m.set(p.participant.phone, [...(m.get(p.participant.phone) ?? []), p.status]);
      return [B, C, E].map((phone) => m.get(phone) ?? []);
    };
    await expect.poll(byPhone, { timeout: 15_000, interval: 100 }).toEqual([B, C, E].map(() => ["delivered", "read"]));
  });
});

describe("settings of the instance", () => {
  it("ignore.groups silences group events; storage.groups off answers from the network", async () => {
    await api("/settings", { method: "PATCH", json: { ignore: { groups: true }, storage: { groups: false } } });
    const before = (await c.events(a.id, "group.update")).length;
    await expectJson(await api(`/groups/${group}/subject`, { method: "PUT", json: { subject: "Silencioso" } }));
    await expectJson(await api(`/groups/${group}/subject`, { method: "PUT", json: { subject: "Silencioso 2" } }));
    expect((await expectJson<Record<string, any>[]>(await api("/groups"))).find((g) => g.id === group)?.name).toBe(
      "Silencioso 2",
    );
    expect((await c.events(a.id, "group.update")).length).toBe(before);
    await api("/settings", { method: "PATCH", json: { ignore: { groups: false }, storage: { groups: true } } });
  });

  it("official instances: 501 not_supported_by_provider on every group route", async () => {
    const off = await c.createInstance({ kind: "official", provider: undefined });
    const call = (path: string, method = "GET", json?: unknown) =>
      c.as(off.token)(`/v1/instances/${off.id}/groups${path}`, { method, ...(json ? { json } : {}) });
    const g = "120363000000000001@g.us";
    for (const res of [
      await call(""),
      await call("", "POST", { subject: "x", participants: [B] }),
      await call("/count"),
      await call(`/${g}`),
      await call(`/${g}/participants`),
      await call(`/${g}/participants/add`, "POST", { participants: [B] }),
      await call(`/${g}/subject`, "PUT", { subject: "x" }),
      await call(`/${g}/settings`, "PATCH", { messagesAdminOnly: true }),
      await call(`/${g}/invite`),
      await call(`/${g}/requests/reject`, "POST", { participants: [B] }),
      await call("/join", "POST", { code: "AbCdEfGh12345" }),
      await call(`/${g}/leave`, "POST"),
    ]) {
      await expectError(res, 501, "not_supported_by_provider");
    }
  });

  it("an instance that is not connected: instance_not_connected", async () => {
    const idle = await c.createInstance(); // never started
    const call = (path: string, method = "GET", json?: unknown) =>
      c.as(idle.token)(`/v1/instances/${idle.id}/groups${path}`, { method, ...(json ? { json } : {}) });
    for (const res of [
      await call("?refresh=true"),
      await call(`/${group}`),
      await call("", "POST", { subject: "x", participants: [B] }),
      await call(`/${group}/requests/reject`, "POST", { participants: [B] }),
      await call("/join", "POST", { code: "AbCdEfGh12345" }),
    ]) {
      await expectError(res, 422, "instance_not_connected");
    }
  });
});
