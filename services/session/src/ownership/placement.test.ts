// Where a session pod places instances (placement.ts), without Redis: the live pods as its leases
// report them, the first pod with room in rendezvous order, and when one it holds is handed over.
import type { Platform, PodInfo } from "@gw/platform";
import { describe, expect, it } from "vitest";
import { Placement } from "./placement.ts";

const pod = (podId: string, load = 0, capacity = 10): PodInfo => ({ podId, url: `http://${podId}`, capacity, load });
const platformWith = (live: PodInfo[], ttlMs = 1_000) =>
  ({ leases: { ttlMs, livePods: async () => live } }) as unknown as Platform;

describe("placement", () => {
  it("lists the other live pods, and this one as it is now instead of its last heartbeat", async () => {
    const placement = new Placement(platformWith([pod("a", 1), pod("me", 5)]), "me");
    const pods = await placement.livePods(() => pod("me", 2));
    expect(pods.map((p) => [p.podId, p.load])).toEqual([
      ["a", 1],
      ["me", 2],
    ]);
  });

  it("passes over a full pod; this pod keeps what it holds even when full", () => {
    const placement = new Placement(platformWith([]), "me");
    const pods = [pod("a", 3, 3), pod("me", 3, 3)];
    for (const id of ["i-1", "i-2", "i-3", "i-4", "i-5"]) expect(placement.target(id, pods)?.podId).toBe("me");
    expect(placement.target("i-1", [pod("a", 3, 3), pod("b", 0, 3)])?.podId).toBe("b");
    expect(placement.target("i-1", [pod("a", 3, 3)])).toBeUndefined();
  });

  it("hands over only to another pod seen live for more than two lease periods", () => {
    const placement = new Placement(platformWith([], 1_000), "me");
    placement.see([pod("a"), pod("me")], 10_000);
    placement.see([pod("a")], 11_900); // seen again: still first seen at 10 000
    expect(placement.handsOver(pod("a"), 11_999)).toBe(false);
    expect(placement.handsOver(pod("a"), 12_001)).toBe(true);
    expect(placement.handsOver(pod("me"), 20_000)).toBe(false);
    expect(placement.handsOver(pod("never-seen"), 20_000)).toBe(false);
    expect(placement.handsOver(undefined, 20_000)).toBe(false);
  });
});
