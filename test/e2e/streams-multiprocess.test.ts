// Live streams across gateway replicas (docs/streams.md "Replicas"): two real gateway processes
// (services/main) on one Redis key prefix, events published by a third party (this process, through
// the platform, as a session pod would). Either replica serves any instance's stream, a ticket
// minted on one opens a stream on the other, and a client whose gateway goes away mid-flow resumes
// on the other by id with nothing lost or repeated. No pod affinity anywhere.
import { createPlatform, loadConfig, type Platform } from "@gw/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ChildGateway, expectJson, spawnGatewayProcess } from "../support/e2e-helpers.ts";
import { ADMIN_TOKEN, testEnv, uniquePrefix } from "../support/gateway.ts";
import { publish, SseClient } from "./streams-client.ts";

let a: ChildGateway;
let b: ChildGateway;
let platform: Platform;
let inst: { id: string; token: string };
const open: SseClient[] = [];

const streamUrl = (gw: ChildGateway, query = "") => `${gw.url}/v1/instances/${inst.id}/events/stream${query}`;
async function sse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(url, { "x-instance-token": inst.token, ...headers });
  open.push(client);
  expect(client.status).toBe(200);
  return client;
}

beforeAll(async () => {
  const KEY_PREFIX = uniquePrefix();
  // One after the other: concurrent boots on a fresh prefix race on the index creation.
  a = await spawnGatewayProcess({ KEY_PREFIX });
  b = await spawnGatewayProcess({ KEY_PREFIX });
  platform = await createPlatform(loadConfig(testEnv({ KEY_PREFIX })));
  const res = await fetch(`${a.url}/v1/admin/instances`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "streams", kind: "standard" }),
  });
  const body = await expectJson<{ instance: { id: string }; token: string }>(res, 201);
  inst = { id: body.instance.id, token: body.token };
}, 120_000);

afterAll(async () => {
  for (const c of open) c.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await platform?.close();
});

it("both replicas stream the same events; a ticket of one opens the other", async () => {
  const onA = await sse(streamUrl(a));
  const ticket = await expectJson<{ ticket: string }>(
    await fetch(`${a.url}/v1/instances/${inst.id}/stream-ticket`, {
      method: "POST",
      headers: { "x-instance-token": inst.token },
    }),
  );
  const onB = await SseClient.open(streamUrl(b, `?ticket=${encodeURIComponent(ticket.ticket)}`));
  open.push(onB);
  expect(onB.status).toBe(200);
  const sent = [
    await publish(platform, inst.id, "message", { n: 1 }),
    await publish(platform, inst.id, "message", { n: 2 }),
  ];
  expect(await onA.waitFor(2)).toEqual(sent);
  expect(await onB.waitFor(2)).toEqual(sent);
});

it("a client whose gateway stops mid-flow resumes on the other by id: nothing lost, nothing twice", async () => {
  const first = await sse(streamUrl(a, "?events=message.ack"));
  const published: string[] = [];
  const flow = (async () => {
    for (let i = 0; i < 300; i++) {
      published.push((await publish(platform, inst.id, "message.ack", { n: i })).id);
      await new Promise((r) => setTimeout(r, 3));
    }
  })();
  await first.waitFor(50, 20_000);
  await a.stop(); // SIGTERM: the gateway ends its streams and exits
  await first.waitEnded();
  const seen = first.envelopes().map((e) => e.id);
  expect(seen.length).toBeLessThan(300); // it stopped mid-flow
  // As EventSource would: the same request to another replica, with the last id it received.
  const second = await sse(streamUrl(b, "?events=message.ack"), { "last-event-id": seen.at(-1)! });
  await flow;
  await second.waitFor(published.length - seen.length, 20_000);
  expect([...seen, ...second.envelopes().map((e) => e.id)]).toEqual(published);
}, 60_000);
