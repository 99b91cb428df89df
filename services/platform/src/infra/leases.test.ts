// Leases on a real Redis: the guarantees the session manager relies on.
import { createHash } from "node:crypto";
import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPlatform, type Platform } from "../platform.ts";
import { loadConfig } from "./config.ts";
import { rankPods } from "./leases.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv({ LEASE_TTL_MS: "2000" })));
});
afterAll(() => platform?.close());

it("a held lease is never handed out again, not even to the pod named in it", async () => {
  // The race this closes: a pod releasing an instance (lease still set) while its own reconcile
  // tries to acquire it must not get the same epoch back and run a second session.
  const { leases } = platform;
  const first = await leases.acquire("ilease00001", "pod-a");
  expect(first).toBeGreaterThan(0);
  expect(await leases.acquire("ilease00001", "pod-a")).toBeNull();
  expect(await leases.acquire("ilease00001", "pod-b")).toBeNull();
  expect(await leases.owner("ilease00001")).toEqual({ podId: "pod-a", epoch: first });
});

it("every acquisition has a new epoch; a stale one can neither renew nor release", async () => {
  const { leases } = platform;
  const e1 = (await leases.acquire("ilease00002", "pod-a"))!;
  await leases.release("ilease00002", "pod-a", e1);
  expect(await leases.owner("ilease00002")).toBeNull();
  const e2 = (await leases.acquire("ilease00002", "pod-b"))!;
  expect(e2).toBeGreaterThan(e1);
  expect(await leases.renew("pod-a", new Map([["ilease00002", e1]]))).toEqual(["ilease00002"]);
  await leases.release("ilease00002", "pod-a", e1); // not ours: a no-op
  expect(await leases.owner("ilease00002")).toEqual({ podId: "pod-b", epoch: e2 });
  expect(await leases.renew("pod-b", new Map([["ilease00002", e2]]))).toEqual([]);
});

it("rendezvous ranking: the order of sha1(pod \\0 instance)'s first 32 bits, the same on every call", () => {
  const pods = ["pod-a", "pod-b", "pod-c"].map((podId) => ({ podId }));
  for (const id of ["iaaaaaaaaaaaaaaaaaaaaaaaa", "ibbbbbbbbbbbbbbbbbbbbbbbb", "iccccccccccccccccccccccccc"]) {
    const w = (podId: string) => createHash("sha1").update(`${podId}\0${id}`).digest().readUInt32BE(0);
    const expected = [...pods].sort((a, b) => w(b.podId) - w(a.podId)).map((p) => p.podId);
    expect(rankPods(id, pods).map((p) => p.podId)).toEqual(expected);
    expect(rankPods(id, pods).map((p) => p.podId)).toEqual(expected); // from the kept weights
  }
  expect(rankPods("ione", [{ podId: "pod-a" }])).toEqual([{ podId: "pod-a" }]);
});
