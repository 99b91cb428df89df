// Stream tickets (docs/streams.md "Tickets"): browsers cannot set headers on EventSource or
// WebSocket, so they open the streams with `?ticket=`, a signed token valid ~60 s for one
// instance (or the admin stream), never the instance token itself. Real Redis, real HTTP.
import { StreamTickets } from "@gw/gateway/streams/tickets";
import { hashToken } from "@gw/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, expectError, expectJson } from "../support/e2e-helpers.ts";
import { INTERNAL_SECRET, startGateway, type TestGateway } from "../support/gateway.ts";
import { publish, SseClient, until } from "./streams-client.ts";

let gw: TestGateway;
let a: { id: string; token: string };
let b: { id: string; token: string };
const open: SseClient[] = [];

const streamUrl = (id: string, query: string) => `${gw.url}/v1/instances/${id}/events/stream${query}`;
async function sse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(url, headers);
  open.push(client);
  return client;
}
async function ticketOf(id: string, token: string): Promise<{ ticket: string; expiresAt: string }> {
  const res = await fetch(`${gw.url}/v1/instances/${id}/stream-ticket`, {
    method: "POST",
    headers: { "x-instance-token": token },
  });
  return expectJson(res);
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

describe("instance tickets", () => {
  it("POST …/stream-ticket answers a ticket valid about a minute; the stream opens with it alone", async () => {
    const before = Date.now();
    const { ticket, expiresAt } = await ticketOf(a.id, a.token);
    expect(ticket).toMatch(/^v1\.[0-9a-z]+\.[\w-]+\.[\w-]+$/);
    expect(ticket).not.toContain(a.token);
    const ttl = Date.parse(expiresAt) - before;
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
    const client = await sse(streamUrl(a.id, `?ticket=${encodeURIComponent(ticket)}&events=message`));
    expect(client.status).toBe(200);
    const e = await publish(gw.platform, a.id, "message", { text: "via ticket" });
    expect(await client.waitFor(1)).toEqual([e]);
    // Reusable within its minute: EventSource reconnects with the same URL.
    const again = await sse(streamUrl(a.id, `?ticket=${encodeURIComponent(ticket)}`));
    expect(again.status).toBe(200);
  });

  it("needs the instance's credentials to be minted", async () => {
    const url = `${gw.url}/v1/instances/${a.id}/stream-ticket`;
    await expectError(await fetch(url, { method: "POST" }), 401, "missing_token");
    await expectError(
      await fetch(url, { method: "POST", headers: { "x-instance-token": b.token } }),
      401,
      "invalid_token",
    );
    // The bearer form works as on every instance route.
    await expectJson(await fetch(url, { method: "POST", headers: { authorization: `Bearer ${a.token}` } }));
  });

  it("another instance's ticket is refused (401)", async () => {
    const { ticket } = await ticketOf(b.id, b.token);
    const client = await SseClient.open(streamUrl(a.id, `?ticket=${encodeURIComponent(ticket)}`));
    expect(client.status).toBe(401);
    expect(client.errorBody).toMatchObject({ error: { code: "invalid_token" } });
  });

  it("an expired, tampered or malformed ticket is refused (401)", async () => {
    const fingerprint = hashToken(a.token);
    const tickets = new StreamTickets(INTERNAL_SECRET);
    const expired = tickets.mint(a.id, fingerprint, Date.now() - 61_000).ticket;
    const valid = tickets.mint(a.id, fingerprint).ticket;
    expect((await SseClient.open(streamUrl(a.id, `?ticket=${valid}`))).status).toBe(200);
    const [v, exp, nonce, sig] = valid.split(".");
    const later = (Number.parseInt(exp!, 36) + 3_600_000).toString(36);
    for (const bad of [expired, `${v}.${later}.${nonce}.${sig}`, "v1.x.y.z", "nope"]) {
      await expectError(await fetch(streamUrl(a.id, `?ticket=${encodeURIComponent(bad)}`)), 401, "invalid_token");
    }
    // Signed with another secret (another deployment): refused.
    const foreign = new StreamTickets("another-internal-secret-0123456789").mint(a.id, fingerprint).ticket;
    await expectError(await fetch(streamUrl(a.id, `?ticket=${foreign}`)), 401, "invalid_token");
  });

  it("a rotated token voids the tickets minted with it", async () => {
    const c = await gw.createInstance();
    const { ticket } = await ticketOf(c.id, c.token);
    await expectJson(await gw.admin("POST", `/v1/admin/instances/${c.id}/token`));
    await expectError(await fetch(streamUrl(c.id, `?ticket=${encodeURIComponent(ticket)}`)), 401, "invalid_token");
  });

  it("a deleted instance's streams end at once", async () => {
    const c = await gw.createInstance();
    const { ticket } = await ticketOf(c.id, c.token);
    const client = await sse(streamUrl(c.id, `?ticket=${encodeURIComponent(ticket)}`));
    const byToken = await sse(streamUrl(c.id, ""), { "x-instance-token": c.token });
    expect(client.status).toBe(200);
    expect((await gw.admin("DELETE", `/v1/admin/instances/${c.id}`)).status).toBeLessThan(300);
    await client.waitEnded();
    await byToken.waitEnded();
  });
});

describe("admin tickets", () => {
  it("POST /v1/admin/stream-ticket (admin token) opens the admin stream; not an instance's", async () => {
    const { ticket } = await expectJson(
      await fetch(`${gw.url}/v1/admin/stream-ticket`, { method: "POST", headers: adminHeaders() }),
    );
    const client = await sse(`${gw.url}/v1/admin/events/stream?ticket=${encodeURIComponent(ticket)}`);
    expect(client.status).toBe(200);
    const e = await publish(gw.platform, b.id, "message", { text: "seen by the operator" });
    await until(() => client.envelopes().some((x) => x.id === e.id), "the admin stream to carry the event");
    // An admin ticket is no instance's, an instance's is not the admin's.
    await expectError(await fetch(streamUrl(a.id, `?ticket=${encodeURIComponent(ticket)}`)), 401, "invalid_token");
    const inst = await ticketOf(a.id, a.token);
    await expectError(
      await fetch(`${gw.url}/v1/admin/events/stream?ticket=${encodeURIComponent(inst.ticket)}`),
      401,
      "invalid_token",
    );
  });

  it("needs the admin token", async () => {
    const url = `${gw.url}/v1/admin/stream-ticket`;
    await expectError(await fetch(url, { method: "POST" }), 401, "missing_token");
    await expectError(
      await fetch(url, { method: "POST", headers: { authorization: `Bearer ${a.token}` } }),
      401,
      "invalid_token",
    );
  });
});
