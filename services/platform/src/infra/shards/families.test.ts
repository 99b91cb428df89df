import { describe, expect, it } from "vitest";
import { allEventsKeys } from "../../events/all-events.ts";
import { keys } from "../keys.ts";
import { CONTROL_HEADS, routeOfKey } from "./families.ts";
import { homeShardOf, newShardedInstanceId } from "./placement.ts";

const P = "gw:";
const ID = "iabcdefghjkmnpqrstvwxyz012";
const k = keys(P);

/** Every key `keys()` makes, by family name, with placeholder ids (the instance's where it takes one). */
function everyKey(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, v] of Object.entries(k)) {
    if (typeof v === "string") out.set(name, v);
    else if (typeof v === "function") {
      const f = v as (...a: unknown[]) => string;
      // The first parameter is the instance's id for every family that takes one; others get text.
      // The keys of before session 34 take a delivery's or a webhook's id, not the instance's.
      out.set(name, f.length === 0 ? f() : name.startsWith("legacy") ? f("dlv_x") : f(ID, "x", "y"));
    }
  }
  return out;
}

const INSTANCE_FAMILIES = new Set([
  "authCreds",
  "authFence",
  "authKeys",
  "authKeyTypes",
  "recentEvents",
  "message",
  "rawMessage",
  "mediaCache",
  "avatar",
  "readDoc",
  "readChatIndex",
  "readLidIndex",
  "readAckPrefix",
  "readLidAckPrefix",
  "readChatState",
  "readChatOrderVisible",
  "readChatOrderMerged",
  "readPendingAck",
  "lidMap",
  "phoneLidMap",
  "chatNames",
  "idempotency",
  "trialCount",
  "trialCharge",
  "queueSettings",
  "queuePending",
  "queueHistory",
  "queueItem",
  "queueRunning",
  "cloudWindow",
  "cloudMedia",
  "cloudSeen",
  "groups",
  "groupsListed",
  "statusAudience",
  "statusPosts",
  "call",
  "converted",
  "apps",
  "providerRecords",
  "presence",
  "presenceIndex",
  "delivery",
  "webhookDeliveries",
  "webhookResponseTimes",
]);
const LOCAL_FAMILIES = new Set(["queueActive", "events"]);

describe("key families (the one table of which shard holds what)", () => {
  it("classifies every key keys() makes: an instance's data on its shard, global data on control", () => {
    const seen = new Set<string>();
    for (const [name, key] of everyKey()) {
      if (name === "prefix" || name.endsWith("Schema") || (name.endsWith("Prefix") && !name.startsWith("read")))
        continue;
      const route = routeOfKey(P, key);
      if (INSTANCE_FAMILIES.has(name)) {
        expect(route, `${name}: ${key}`).toEqual({ scope: "instance", instanceId: ID });
      } else if (LOCAL_FAMILIES.has(name)) {
        expect(route.scope, `${name}: ${key}`).toBe("local");
      } else {
        expect(route.scope, `${name}: ${key}`).toBe("control");
        expect(
          CONTROL_HEADS.some((h) => key.slice(P.length).startsWith(h)),
          `${name}: ${key} has a control head`,
        ).toBe(true);
      }
      seen.add(name);
    }
    for (const name of [...INSTANCE_FAMILIES, ...LOCAL_FAMILIES]) expect(seen, name).toContain(name);
  });

  it("the read model's chat records are the instance's, their index each shard's own", () => {
    expect(routeOfKey(P, `${k.readChatSchema}:${ID}:5531@c.us`)).toEqual({ scope: "instance", instanceId: ID });
    expect(routeOfKey(P, `${k.readChatSchema}:index`).scope).toBe("local");
    expect(routeOfKey(P, `${k.readChatSchema}:index:hash`).scope).toBe("local");
    for (const key of Object.values(allEventsKeys(P))) expect(routeOfKey(P, key).scope).toBe("local");
  });

  it("keys outside the prefix, or not naming an instance under an instance head, are control's", () => {
    expect(routeOfKey(P, `other:rmd:${ID}:x`).scope).toBe("control");
    expect(routeOfKey(P, `${P}rmd:not-an-id:x`).scope).toBe("control");
    expect(routeOfKey(P, `${P}q:active`).scope).toBe("local");
  });
});

describe("placement in the id", () => {
  it("a sharded id names its shard; ids of other lengths live on shard 0", () => {
    for (const shard of [0, 1, 31, 32, 1023]) {
      const id = newShardedInstanceId(shard);
      expect(id).toMatch(/^i[0-9a-z]{26}$/);
      expect(homeShardOf(id)).toBe(shard);
    }
    expect(homeShardOf(ID.slice(0, 25))).toBe(0);
    expect(homeShardOf("i0123456789abcdef")).toBe(0);
    expect(() => newShardedInstanceId(1024)).toThrow();
  });
});

describe("the routed client", () => {
  it("answers a command it cannot route with a rejected promise, not a synchronous throw", async () => {
    const { RedisShards } = await import("./index.ts");
    const fake = {} as never;
    const shards = new RedisShards(P, [fake, fake]);
    shards.directory.set(ID, null, "copy");
    const p = shards.redis.get(`${P}rmd:${ID}:x`);
    await expect(p).rejects.toMatchObject({ name: "InstanceMovingError", status: 503, retryAfter: 2 });
    const other = newShardedInstanceId(1);
    const cross = shards.redis.del(`${P}rmd:${newShardedInstanceId(0)}:x`, `${P}rmd:${other}:x`);
    await expect(cross).rejects.toThrow(/two shards/);
  });
});
