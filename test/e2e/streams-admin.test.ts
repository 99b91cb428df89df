// GET /v1/admin/events/stream (docs/streams.md "Admin stream"): every instance's events for the
// console and operators, the admin token (or an admin ticket), `?instanceId=` for one instance.
// The all-instances stream is only written while an admin stream watches it. Real Redis, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, expectError } from "../support/e2e-helpers.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { publish, SseClient } from "./streams-client.ts";

let gw: TestGateway;
let a: { id: string; token: string };
let b: { id: string; token: string };
const open: SseClient[] = [];

const adminUrl = (query = "") => `${gw.url}/v1/admin/events/stream${query}`;
async function adminStream(query = "", headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(adminUrl(query), { ...adminHeaders(), ...headers });
  open.push(client);
  expect(client.status).toBe(200);
  return client;
}

beforeAll(async () => {
  gw = await startGateway();
  a = await gw.createInstance();
  b = await gw.createInstance();
});
afterAll(async () => {
  for (const c of open) c.close();
  await gw.close();
});

describe("admin stream", () => {
  it("writes nothing extra while no admin stream is open", async () => {
    await publish(gw.platform, a.id, "message", { n: "unwatched" });
    expect(await gw.platform.redis.exists(gw.platform.events.streamKey(null))).toBe(0);
  });

  it("carries every instance's events, in publish order", async () => {
    const client = await adminStream();
    const sent = [
      await publish(gw.platform, a.id, "message", { n: 1 }),
      await publish(gw.platform, b.id, "message.ack", { n: 2 }),
      await publish(gw.platform, a.id, "session.status", { status: "WORKING" }),
    ];
    expect(await client.waitFor(3)).toEqual(sent);
    expect(client.events.map((e) => e.event)).toEqual(["message", "message.ack", "session.status"]);
  });

  it("?instanceId= and ?events= narrow it", async () => {
    const onlyB = await adminStream(`?instanceId=${b.id}`);
    const acks = await adminStream("?events=message.ack");
    await publish(gw.platform, a.id, "message", { n: 3 });
    const bAck = await publish(gw.platform, b.id, "message.ack", { n: 4 });
    const bMsg = await publish(gw.platform, b.id, "message", { n: 5 });
    expect(await onlyB.waitFor(2)).toEqual([bAck, bMsg]);
    expect(await acks.waitFor(1)).toEqual([bAck]);
  });

  it("resumes by Last-Event-ID: over every instance, and over one instance's whole 7-day history", async () => {
    const first = await adminStream();
    const x = await publish(gw.platform, a.id, "message", { n: "x" });
    await first.waitFor(1);
    first.close();
    const missed = [
      await publish(gw.platform, b.id, "message", { n: "y" }),
      await publish(gw.platform, a.id, "message", { n: "z" }),
    ];
    const again = await adminStream("", { "last-event-id": x.id });
    expect(await again.waitFor(2)).toEqual(missed);

    // One instance: its own history, older than any admin stream.
    const old = await gw.createInstance();
    const before = [];
    for (let i = 0; i < 3; i++) before.push(await publish(gw.platform, old.id, "message", { n: i }));
    const one = await adminStream(`?instanceId=${old.id}&cursor=${before[0]!.id}`);
    expect(await one.waitFor(2)).toEqual(before.slice(1));
  });

  it("refuses an instance token, no token, and an unknown instance", async () => {
    await expectError(await fetch(adminUrl()), 401, "missing_token");
    await expectError(
      await fetch(adminUrl(), { headers: { authorization: `Bearer ${a.token}` } }),
      401,
      "invalid_token",
    );
    await expectError(await fetch(adminUrl("?instanceId=i00000000000"), { headers: adminHeaders() }), 404, "not_found");
  });

  it("watches the all-instances stream for 30 s at a time, and lets it expire an hour after", async () => {
    await adminStream();
    const watch = await gw.platform.redis.pttl(`${gw.platform.keys.prefix}all-events:watch`);
    expect(watch).toBeGreaterThan(0);
    expect(watch).toBeLessThanOrEqual(30_000);
    const kept = await gw.platform.redis.pttl(gw.platform.events.streamKey(null));
    expect(kept).toBeGreaterThan(30_000);
    expect(kept).toBeLessThanOrEqual(3_600_000);
  });
});
