import { INSTANCE_ID_RE } from "@gw/contracts";

/**
 * One store per shard behind one object of the store's own type (the read model: its chat
 * records are redis-om documents searched through an index each shard has, so it needs that
 * shard's redis-om client). A method whose first argument names an instance — its id, or an
 * object with `id` — runs on the store of the instance's shard; a `broadcast` method runs on every
 * one (the answer: the first's); anything else (pure helpers, properties) is the first store's.
 */
export function byInstance<T extends object>(
  parts: readonly T[],
  shardOf: (instanceId: string) => number,
  broadcast: readonly string[] = [],
): T {
  const first = parts[0]!;
  if (parts.length === 1) return first;
  // An instance id, or an object whose `id` is one (an Instance; a message payload's `id` is not).
  const instanceOf = (arg: unknown): string | undefined => {
    const id = arg !== null && typeof arg === "object" ? (arg as { id?: unknown }).id : arg;
    return typeof id === "string" && INSTANCE_ID_RE.test(id) ? id : undefined;
  };
  return new Proxy(first, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function" || typeof prop !== "string") return v;
      if (broadcast.includes(prop)) {
        return (...args: unknown[]) =>
          parts.map((p) => (p as Record<string, (...a: unknown[]) => unknown>)[prop]!(...args))[0];
      }
      return (...args: unknown[]) => {
        const id = instanceOf(args[0]);
        const part = (id === undefined ? first : parts[shardOf(id)]!) as Record<string, (...a: unknown[]) => unknown>;
        return part[prop]!(...args);
      };
    },
  });
}
