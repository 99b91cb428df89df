// The send routes end to end through gateway → session pod → simnet, and the queue on Temporal.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531977770001" };
const b = { id: "", token: "", phone: "5531977770002" };
let call: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

beforeAll(async () => {
  c = await startCluster({ simnet: { ackDelayMs: 20 }, worker: { retryScheduleMs: [100] } });
  for (const inst of [a, b]) {
    Object.assign(inst, await c.createInstance());
    await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
    await c.pair(inst.id, inst.phone);
  }
  call = (path, init) => c.as(a.token)(`/v1/instances/${a.id}${path}`, init);
}, 120_000);
afterAll(() => c?.close());

it("text: 201 with the spec's send response, and the contact receives it", async () => {
  const res = await call("/messages/text", { method: "POST", json: { phone: b.phone, text: "olá" } });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body).toMatchObject({ chatId: `${b.phone}@c.us`, status: "sent" });
  expect(body.id).toMatch(new RegExp(`^true_${b.phone}@c\\.us_[A-Z0-9]+$`));
});

it("queued text: 202 and queue.sent", async () => {
  const res = await call("/messages/text", {
    method: "POST",
    json: { phone: b.phone, text: "pela fila", delayMessage: 0, delayTyping: 0 },
  });
  const item = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(item)).toBe(202);
  expect(item.id).toMatch(/^qm_/);
  const until = Date.now() + 20_000;
  let got: { status: string; messageId: string | null } = { status: "", messageId: null };
  while (Date.now() < until) {
    got = (await (await call(`/queue/${item.id}`)).json()) as typeof got;
    if (got.status === "sent") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(got.status).toBe("sent");
  expect(got.messageId).toMatch(/^true_/);
}, 30_000);
