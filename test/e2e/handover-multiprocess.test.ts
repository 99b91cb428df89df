// Multi-process: simnet, one gateway and two session pods as separate OS processes. A graceful
// handover (SIGTERM of the owner, as on a rolling restart, and the restarted pod taking its
// instance back) is invisible to a client: every send during it succeeds, including one that
// reaches the new owner after it took the lease and before its connection is open (simnet's
// slow-open fault holds that window open), and the status stays WORKING throughout. An instance
// that is reconnecting answers 503 network_unavailable with Retry-After (transient: the client
// retries; contracts failures.ts), at once when its status says so, and after the bounded wait
// when a resumed connection does not come up in time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnMultiProcessCluster } from "../support/processes.ts";
import { scanShownQr } from "../support/qr.ts";

type Conn = { instanceId: string; pod: string; state: string };
type SendAnswer = { status: number; code?: string; details?: Record<string, string>; retryAfter?: number };

/** The window a resuming instance's sends wait for its connection (HANDOVER_SEND_WAIT_MS). */
const RESUME_WINDOW_MS = 4_000;
const CONTACT = "5521988887777";

let cl: Awaited<ReturnType<typeof spawnMultiProcessCluster>>;
const inst = { id: "", token: "", phone: "5521977770001" };

async function connectionsOf(id: string): Promise<Conn[]> {
  const { connections } = await cl.sim<{ connections: Conn[] }>("GET", "/simnet/connections");
  return connections.filter((c) => c.instanceId === id && c.state !== "closed");
}

async function statusOf(id: string): Promise<string> {
  const res = await cl.admin("GET", `/v1/admin/instances/${id}`);
  return ((await res.json()) as { instance: { connectionStatus: string } }).instance.connectionStatus;
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

let sent = 0;
async function send(): Promise<SendAnswer> {
  const res = await fetch(`${cl.gateway.url}/v1/instances/${inst.id}/messages/text`, {
    method: "POST",
    headers: { "x-instance-token": inst.token, "content-type": "application/json" },
    body: JSON.stringify({ chatId: `${CONTACT}@c.us`, text: `handover ${++sent}` }),
  });
  const body = (await res.json()) as { error?: { code: string; details?: Record<string, string> } };
  const retryAfter = res.headers.get("retry-after");
  return {
    status: res.status,
    code: body.error?.code,
    details: body.error?.details,
    ...(retryAfter ? { retryAfter: Number(retryAfter) } : {}),
  };
}

const openOn = async (pod: string) => (await connectionsOf(inst.id)).some((c) => c.pod === pod && c.state === "open");

beforeAll(async () => {
  cl = await spawnMultiProcessCluster(["pod-a", "pod-b"], { HANDOVER_SEND_WAIT_MS: String(RESUME_WINDOW_MS) });
  await cl.sim("POST", "/simnet/phones", { phone: CONTACT });
  const res = await cl.admin("POST", "/v1/admin/instances", { name: "handover", kind: "standard", provider: "sim" });
  const out = (await res.json()) as { instance: { id: string }; token: string };
  Object.assign(inst, { id: out.instance.id, token: out.token });
  const started = await fetch(`${cl.gateway.url}/v1/instances/${inst.id}/start`, {
    method: "POST",
    headers: { "x-instance-token": inst.token },
  });
  expect(started.status).toBe(200);
  await waitUntil(async () => (await statusOf(inst.id)) === "SCAN_QR_CODE", "SCAN_QR_CODE");
  await scanShownQr(cl.simnet.url, inst.id, inst.phone);
  await waitUntil(async () => (await statusOf(inst.id)) === "WORKING", "WORKING");
}, 120_000);

afterAll(() => cl?.close(), 60_000);

describe("graceful handover", () => {
  it("every send during it succeeds, one of them while the new owner's connection is opening", async () => {
    const [conn] = (await connectionsOf(inst.id)).filter((c) => c.state === "open");
    const from = conn!.pod;
    const to = from === "pod-a" ? "pod-b" : "pod-a";
    // The new owner's connection opens 1 s after its hello: well inside the window.
    await cl.sim("POST", "/simnet/faults/slow-open", { ms: 1_000 });

    const answers: SendAnswer[] = [];
    const statuses = new Set<string>();
    let loading = true;
    const load = (async () => {
      while (loading) {
        answers.push(await send());
        statuses.add(await statusOf(inst.id));
        await new Promise((r) => setTimeout(r, 100)); // under the instance's rate limit
      }
    })();

    const stopping = cl.pods.get(from)!.stop(); // SIGTERM: the graceful path of a rolling restart
    // The new owner holds the lease and its connection is not open yet: a send now must wait.
    await waitUntil(
      async () => (await connectionsOf(inst.id)).some((c) => c.pod === to && c.state !== "open"),
      `the connection of ${to} opening`,
    );
    const duringOpening = send();
    await stopping;
    await waitUntil(() => openOn(to), `open on ${to}`);
    expect(await duringOpening).toEqual({ status: 201 });

    // The restarted pod (same id) takes the instance back after two lease periods: the same again.
    cl.pods.set(from, await cl.spawnPod(from));
    await waitUntil(() => openOn(from), `back on ${from}`, 60_000);
    loading = false;
    await load;
    await cl.sim("POST", "/simnet/faults/slow-open", { ms: 0 });

    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    expect([...statuses]).toEqual(["WORKING"]);
    const stats = await cl.sim<{ instanceOverlaps: number; conflicts: number }>("GET", "/simnet/stats");
    expect(stats.instanceOverlaps).toBe(0);
    expect(stats.conflicts).toBe(0);
  }, 120_000);
});

describe("an instance that is not connected", () => {
  it("answers 503 network_unavailable with Retry-After at once when its connection dropped (was 422: final)", async () => {
    // An outage closes the connection and refuses new ones: the owner reports STARTING.
    await cl.sim("POST", "/simnet/faults/outage", { seconds: 60 });
    await waitUntil(async () => (await statusOf(inst.id)) === "STARTING", "STARTING");
    // Refused by the gateway on the status, before any owner is asked: nothing waits.
    expect(await send()).toEqual({
      status: 503,
      code: "network_unavailable",
      details: { connectionStatus: "esperado WORKING, atual STARTING" },
      retryAfter: expect.any(Number),
    });
    await cl.sim("POST", "/simnet/faults/outage", { seconds: 0 });
    await waitUntil(async () => (await statusOf(inst.id)) === "WORKING", "WORKING again");
  }, 60_000);

  it("answers 503 after the bounded wait when a handed-over connection does not open in time (was 422)", async () => {
    const [conn] = (await connectionsOf(inst.id)).filter((c) => c.state === "open");
    const from = conn!.pod;
    const to = from === "pod-a" ? "pod-b" : "pod-a";
    // Longer than the window: the new owner gives up claiming WORKING and says STARTING.
    await cl.sim("POST", "/simnet/faults/slow-open", { ms: RESUME_WINDOW_MS + 3_000 });
    const stopping = cl.pods.get(from)!.stop();
    await waitUntil(
      async () => (await connectionsOf(inst.id)).some((c) => c.pod === to && c.state !== "open"),
      `the connection of ${to} opening`,
    );
    const answer = await send();
    await stopping;
    expect(answer.status).toBe(503);
    expect(answer.code).toBe("network_unavailable");
    expect(answer.retryAfter).toBeGreaterThan(0);
    // The held-back STARTING is written once the window ran out; WORKING follows the late open.
    await waitUntil(async () => (await statusOf(inst.id)) === "WORKING" && (await openOn(to)), `WORKING on ${to}`);
    await cl.sim("POST", "/simnet/faults/slow-open", { ms: 0 });
    cl.pods.set(from, await cl.spawnPod(from));
  }, 90_000);
});
