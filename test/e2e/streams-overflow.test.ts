// A slow consumer never grows the gateway's memory without bound (docs/streams.md "Slow clients"):
// a client that stops reading is closed once its buffer passes 1,000 events or 1 MiB — SSE with a
// final `event: overflow` carrying the id to resume after, WebSocket with close code 4008 and that
// id as its reason — and resuming from that id loses nothing. Real Redis, real sockets that stall.
import { STREAM_CLOSE_CODES } from "@gw/contracts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { publish, SseClient, StalledClient, sseOf, wsFramesOf } from "./streams-client.ts";

let gw: TestGateway;
const open: SseClient[] = [];

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  for (const c of open) c.close();
  await gw.close();
});

/** Large events, enough to fill the loopback's socket buffers and then the gateway's 1 MiB. */
async function flood(instanceId: string, count: number): Promise<string[]> {
  const blob = "x".repeat(32 * 1024);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await publish(gw.platform, instanceId, "message", { n: i, blob })).id);
  return ids;
}

/** The instance's history goes with the test: it is megabytes. */
async function dropHistory(instanceId: string): Promise<void> {
  await gw.platform.redis.del(gw.platform.events.streamKey(instanceId));
}

it("SSE: a client that stops reading gets `event: overflow` with its resume id, then the stream ends", async () => {
  const inst = await gw.createInstance();
  const path = `/v1/instances/${inst.id}/events/stream`;
  const stalled = await StalledClient.open(gw.url, path, { "x-instance-token": inst.token });
  await new Promise((r) => setTimeout(r, 200)); // its feed in place
  const ids = await flood(inst.id, 600);
  const { status, events } = sseOf(await stalled.readAll());
  expect(status).toBe(200);
  const last = events.at(-1)!;
  expect(last.event).toBe("overflow");
  const delivered = events.slice(0, -1).map((e) => e.id);
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.length).toBeLessThan(ids.length);
  expect(delivered).toEqual(ids.slice(0, delivered.length));
  const { cursor } = JSON.parse(last.data) as { cursor: string };
  expect(cursor).toBe(delivered.at(-1));

  // Reconnecting with it (as EventSource does, Last-Event-ID) gets the rest: nothing lost, nothing twice.
  const resumed = await SseClient.open(`${gw.url}${path}`, { "x-instance-token": inst.token, "last-event-id": cursor });
  open.push(resumed);
  const rest = await resumed.waitFor(ids.length - delivered.length, 30_000);
  expect([...delivered, ...rest.map((e) => e.id)]).toEqual(ids);
  resumed.close();
  await dropHistory(inst.id);
});

it("WebSocket: a client that stops reading is closed with 4008 and its resume id as the reason", async () => {
  const inst = await gw.createInstance();
  const path = `/v1/instances/${inst.id}/ws`;
  const stalled = await StalledClient.open(gw.url, path, { "x-instance-token": inst.token }, true);
  await new Promise((r) => setTimeout(r, 200));
  const ids = await flood(inst.id, 600);
  const { status, texts, close } = wsFramesOf(await stalled.readWs());
  expect(status).toBe(101);
  expect(close?.code).toBe(STREAM_CLOSE_CODES.overflow);
  const delivered = texts.map((t) => (JSON.parse(t) as { id: string }).id);
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.length).toBeLessThan(ids.length);
  expect(delivered).toEqual(ids.slice(0, delivered.length));
  expect(close?.reason).toBe(delivered.at(-1));
  await dropHistory(inst.id);
});

it("the stalled clients are gone from the gateway: new events reach a fresh client at once", async () => {
  const inst = await gw.createInstance();
  const client = await SseClient.open(`${gw.url}/v1/instances/${inst.id}/events/stream`, {
    "x-instance-token": inst.token,
  });
  open.push(client);
  const e = await publish(gw.platform, inst.id, "message", { n: 1 });
  expect(await client.waitFor(1)).toEqual([e]);
});
