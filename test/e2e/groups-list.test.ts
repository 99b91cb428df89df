// Listing groups end to end on simnet: paging and sort, the stored list (`storage.groups`: served
// for 5 minutes, `refresh=true` asks the network, a group event drops it), legacy group ids
// (`<number>-<timestamp>`) in both forms, and participants known only by their lid — real HTTP,
// Redis, simnet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531962230001" };
const B = "5531962230002";
const H = "5531962230003"; // hides its number
const LEGACY = `${B}-1600000000`;

type Group = { id: string; name: string; creation: number; participants: Record<string, any>[] };

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
const list = async (query = "") => expectJson<Group[]>(await api(`/groups${query}`));
const simGroup = async (body: Record<string, unknown>) =>
  (await expectJson<{ id: string }>(await c.sim("POST", "/simnet/groups", body), 201)).id;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const NAMES = ["delta", "Alfa", "charlie", "Bravo", "echo"];
const ids: Record<string, string> = {};

beforeAll(async () => {
  c = await startCluster();
  await c.sim("POST", "/simnet/phones", { phone: B, pushName: "Bruno" });
  await c.sim("POST", "/simnet/phones", { phone: H, pushName: "Oculto", hidePhone: true });
  const inst = await c.createInstance();
  Object.assign(a, inst);
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  // Groups the number is in, made on the network (by B, who administers them).
  for (const name of NAMES) ids[name] = await simGroup({ subject: name, participants: [B, a.phone, H] });
  ids.legacy = await simGroup({ id: `${LEGACY}@g.us`, subject: "Antigo", participants: [B, a.phone] });
  await simGroup({ subject: "Sem nós", participants: [B, H] });
});
afterAll(() => c?.close());

describe("paging and sort", () => {
  it("sortBy subject (case-insensitive), id and creation; limit and offset page the sorted list", async () => {
    const all = await list("?refresh=true");
    expect(all.map((g) => g.name)).toEqual(["Alfa", "Antigo", "Bravo", "charlie", "delta", "echo"]);
    expect((await list("?sortOrder=desc")).map((g) => g.name)).toEqual([...all.map((g) => g.name)].reverse());
    expect((await list("?limit=2&offset=1")).map((g) => g.name)).toEqual(["Antigo", "Bravo"]);
    expect((await list("?limit=2&offset=5")).map((g) => g.name)).toEqual(["echo"]);
    expect(await list("?offset=6")).toEqual([]);
    const byId = (await list("?sortBy=id")).map((g) => g.id);
    expect(byId).toEqual([...byId].sort());
    const byCreation = (await list("?sortBy=creation&sortOrder=desc")).map((g) => g.creation);
    expect(byCreation).toEqual([...byCreation].sort((x, y) => y - x));
    expect((await expectJson<{ count: number }>(await api("/groups/count"))).count).toBe(6);
    for (const bad of ["?limit=0", "?limit=501", "?offset=-1", "?sortBy=size", "?sortOrder=up", "?refresh=talvez"]) {
      const field = bad.slice(1).split("=")[0]!;
      expect((await expectError(await api(`/groups${bad}`), 422, "validation_error")).error.details).toHaveProperty(
        field,
      );
    }
  });
});

describe("the stored list (storage.groups)", () => {
  it("answers from the store until refresh=true asks the network; a group event drops what it stored", async () => {
    await list("?refresh=true"); // stored now
    // Changed on the network without anything reaching the instance (simnet's control API).
    await c.sim("PATCH", `/simnet/groups/${ids.Alfa}`, { subject: "Alfa 2" });
    expect((await list()).find((g) => g.id === ids.Alfa)?.name).toBe("Alfa");
    expect((await list("?refresh=true")).find((g) => g.id === ids.Alfa)?.name).toBe("Alfa 2");
    // Stored again; a change that is announced (B renames on its phone) drops the stored list.
    await c.sim("PATCH", `/simnet/groups/${ids.Bravo}`, { subject: "Bravo 2" });
    expect((await list()).find((g) => g.id === ids.Bravo)?.name).toBe("Bravo");
    await c.sim("POST", `/simnet/phones/${B}/groups`, {
      op: "groups.subject",
      args: { groupId: ids.delta, subject: "delta 2" },
    });
    await until("the renamed group listed", async () => {
      const names = (await list()).map((g) => g.name);
      return names.includes("delta 2") ? names : undefined;
    });
    // Asked the network again: the silent change shows too.
    expect((await list()).find((g) => g.id === ids.Bravo)?.name).toBe("Bravo 2");
  });

  it("storage.groups off: every list asks the network", async () => {
    await expectJson(await api("/settings", { method: "PATCH", json: { storage: { groups: false } } }));
    await list();
    await c.sim("PATCH", `/simnet/groups/${ids.echo}`, { subject: "echo 2" });
    expect((await list()).find((g) => g.id === ids.echo)?.name).toBe("echo 2");
    await expectJson(await api("/settings", { method: "PATCH", json: { storage: { groups: true } } }));
  });
});

describe("ids and participants", () => {
  it("a legacy group (<number>-<timestamp>) is read by its id in both forms", async () => {
    for (const id of [LEGACY, `${LEGACY}@g.us`]) {
      const g = await expectJson<Group>(await api(`/groups/${id}`));
      expect(g).toMatchObject({ id: `${LEGACY}@g.us`, name: "Antigo" });
    }
    expect((await expectJson<any[]>(await api(`/groups/${LEGACY}/participants`))).map((p) => p.phone).sort()).toEqual(
      [a.phone, B].sort(),
    );
    await expectError(await api(`/groups/${B}-1600000001`), 404, "not_found");
    await expectError(await api(`/groups/${B}-`), 422, "validation_error");
  });

  it("a participant that hides its number is listed by its lid; by number, the lid kept, once it shows it", async () => {
    const hidden = (g: Group) => g.participants.find((p) => p.pushName === "Oculto");
    const before = hidden(await expectJson<Group>(await api(`/groups/${ids.Alfa}`)));
    expect(before).toEqual({
      id: expect.stringMatching(/^\d+@lid$/),
      phone: "",
      lid: before?.id,
      pushName: "Oculto",
      role: "member",
    });
    await c.sim("POST", `/simnet/phones/${H}/reveal`);
    const after = hidden(await expectJson<Group>(await api(`/groups/${ids.Alfa}`)));
    expect(after).toEqual({ id: `${H}@c.us`, phone: H, lid: before!.lid, pushName: "Oculto", role: "member" });
  });
});
