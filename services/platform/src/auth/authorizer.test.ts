// The request authorizer on a real Redis: requests of one event-loop turn share one script call,
// and each still gets its own verdict, charged to its own bucket in arrival order.

import { testEnv } from "@gw/test/gateway";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../infra/config.ts";
import { createPlatform, type Platform } from "../platform.ts";

let platform: Platform;
beforeAll(async () => {
  platform = await createPlatform(loadConfig(testEnv({ RATE_LIMIT_PER_SECOND: "20", RATE_LIMIT_BURST: "40" })));
});
afterAll(() => platform?.close());

async function newInstance(accountId?: string) {
  return platform.instances.create({
    name: "auth",
    kind: "standard",
    provider: "sim",
    provisioned: true,
    ...(accountId ? { accountId } : {}),
  });
}

it("one turn, many requests: every verdict is its own (right, wrong, unknown, Client-Token)", async () => {
  const a = await newInstance();
  const b = await newInstance();
  const account = await platform.accounts.create({ name: "strict" });
  const c = await newInstance(account.id);
  const clientToken = await platform.accounts.issueClientToken(account.id, true);

  const verdicts = await Promise.all([
    platform.authorizer.authorize(a.instance.id, a.token, undefined),
    platform.authorizer.authorize(a.instance.id, b.token, undefined), // b's token on a
    platform.authorizer.authorize("i00000000000000000000nope", a.token, undefined),
    platform.authorizer.authorize(b.instance.id, b.token, undefined),
    platform.authorizer.authorize(c.instance.id, c.token, undefined), // Client-Token required
    platform.authorizer.authorize(c.instance.id, c.token, "wrong"),
    platform.authorizer.authorize(c.instance.id, c.token, clientToken),
  ]);
  expect(verdicts).toEqual([
    { ok: true },
    { ok: false, code: "invalid_token" },
    { ok: false, code: "invalid_token" },
    { ok: true },
    { ok: false, code: "invalid_client_token" },
    { ok: false, code: "invalid_client_token" },
    { ok: true },
  ]);
});

it("a turn of 100 requests to one instance: exactly the burst (40) passes, in arrival order", async () => {
  const a = await newInstance();
  // More than one script call's worth (16): the bucket is charged across calls all the same.
  const verdicts = await Promise.all(
    Array.from({ length: 100 }, () => platform.authorizer.authorize(a.instance.id, a.token, undefined)),
  );
  const passed = verdicts.map((v) => v.ok);
  expect(passed.filter(Boolean)).toHaveLength(40);
  expect(passed.slice(0, 40).every(Boolean)).toBe(true);
  expect(verdicts[99]).toEqual({ ok: false, code: "rate_limited", retryAfterSeconds: 1 });
});

it("wrong tokens in the same turn do not drain the instance's bucket", async () => {
  const a = await newInstance();
  const b = await newInstance();
  const verdicts = await Promise.all([
    ...Array.from({ length: 50 }, () => platform.authorizer.authorize(a.instance.id, b.token, undefined)),
    ...Array.from({ length: 40 }, () => platform.authorizer.authorize(a.instance.id, a.token, undefined)),
  ]);
  expect(verdicts.slice(0, 50).every((v) => !v.ok && v.code === "invalid_token")).toBe(true);
  expect(verdicts.slice(50).every((v) => v.ok)).toBe(true);
});

it("the account's Client-Token state copied into its instances follows every change at once", async () => {
  const account = await platform.accounts.create({ name: "copies" });
  const c = await newInstance(account.id);
  const d = await newInstance(account.id);
  const ask = (inst: typeof c, clientToken?: string) =>
    platform.authorizer.authorize(inst.instance.id, inst.token, clientToken);
  // Asked for once: each instance now holds a copy of its account's (empty) Client-Token state.
  expect(await ask(c)).toEqual({ ok: true });
  expect(await ask(d)).toEqual({ ok: true });
  expect(await platform.redis.hget(platform.keys.instanceAuth(c.instance.id), "ctc")).toBe("1");

  const first = await platform.accounts.issueClientToken(account.id, true);
  expect(await ask(c)).toEqual({ ok: false, code: "invalid_client_token" });
  expect(await ask(d, first)).toEqual({ ok: true });
  const second = await platform.accounts.issueClientToken(account.id, true);
  expect(await ask(c, first)).toEqual({ ok: false, code: "invalid_client_token" });
  expect(await ask(c, second)).toEqual({ ok: true });
  await platform.accounts.setRequireOnAllCalls(account.id, false);
  expect(await ask(c)).toEqual({ ok: true });
  await platform.accounts.setRequireOnAllCalls(account.id, true);
  expect(await ask(d)).toEqual({ ok: false, code: "invalid_client_token" });
  await platform.accounts.disableClientToken(account.id);
  expect(await ask(d)).toEqual({ ok: true });

  // A deleted instance's copy is not written back: its auth hash stays gone, it leaves the set.
  await platform.instances.delete(d.instance.id);
  await platform.accounts.issueClientToken(account.id, false);
  expect(await platform.redis.exists(platform.keys.instanceAuth(d.instance.id))).toBe(0);
  expect(await platform.redis.smembers(platform.keys.accountAuthCopies(account.id))).toEqual([
    platform.keys.instanceAuth(c.instance.id),
  ]);
  expect(await ask(d)).toEqual({ ok: false, code: "invalid_token" });
});
