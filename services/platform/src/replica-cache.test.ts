import { expect, it } from "vitest";
import { ReplicaCache } from "./replica-cache.ts";

it("keeps a loaded value until forgotten; a load overtaken by a change answers but is not kept", async () => {
  const cache = new ReplicaCache<string | null>(60_000);
  let stored = "a";
  const load = async () => stored;
  expect(await cache.get("i1", load)).toBe("a");
  stored = "b";
  expect(await cache.get("i1", load)).toBe("a"); // kept
  cache.forget("i1");
  expect(await cache.get("i1", load)).toBe("b");

  // A change announced while a load is on its way: that load's answer is not kept.
  let release!: () => void;
  const slow = () => new Promise<string>((r) => (release = () => r(stored)));
  cache.forget(null);
  const pending = cache.get("i1", slow);
  stored = "c";
  cache.forget("i1");
  release();
  expect(await pending).toBe("c");
  expect(cache.peek("i1")).toBeUndefined();

  // null answers (nothing there) are not kept either.
  expect(await cache.get("i2", async () => null)).toBeNull();
  expect(cache.peek("i2")).toBeUndefined();
});
