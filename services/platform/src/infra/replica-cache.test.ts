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

it("callers that miss together share one load; a caller after a change does not join it", async () => {
  const cache = new ReplicaCache<string>(60_000);
  let loads = 0;
  const releases: (() => void)[] = [];
  let stored = "a";
  const slow = () =>
    new Promise<string>((r) => {
      loads++;
      const value = stored;
      releases.push(() => r(value));
    });
  const first = cache.get("i1", slow);
  const second = cache.get("i1", slow);
  expect(loads).toBe(1);
  stored = "b";
  cache.forget("i1");
  const third = cache.get("i1", slow); // after the change: a load of its own
  expect(loads).toBe(2);
  for (const release of releases) release();
  expect(await Promise.all([first, second, third])).toEqual(["a", "a", "b"]);
  expect(cache.peek("i1")).toBe("b");

  // A failed load fails its callers and is not kept: the next caller loads again.
  const failing = () => Promise.reject(new Error("down"));
  await expect(Promise.all([cache.get("i2", failing), cache.get("i2", failing)])).rejects.toThrow("down");
  expect(await cache.get("i2", async () => "up")).toBe("up");
});
