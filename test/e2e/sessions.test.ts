// Connection lifecycle end to end on simnet through the public API (spec 3.1, 4.1, 4.2).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { scanShownQr } from "../support/qr.ts";

let c: Cluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(() => c?.close());

let phoneSeq = 0;
const newPhone = () => `5511${String(900000000 + Math.floor(Math.random() * 90000000) + phoneSeq++).slice(0, 9)}`;

async function json<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const statuses = async (id: string) =>
  (await c.events(id, "session.status")).map((e) => (e.payload as { status: string }).status);

describe("pairing by QR", () => {
  it("start → SCAN_QR_CODE → scan → WORKING, with session.status for each change", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    const started = await json<{ instance: { connectionStatus: string } }>(
      await api(`/v1/instances/${id}/start`, { method: "POST" }),
    );
    expect(["STARTING", "SCAN_QR_CODE"]).toContain(started.instance.connectionStatus);
    await c.waitForStatus(id, "SCAN_QR_CODE");

    const raw = await json<{ data: string; mimetype: string; value: string }>(
      await api(`/v1/instances/${id}/qr-code?format=raw`),
    );
    expect(raw.mimetype).toBe("text/plain");
    expect(raw.value).toMatch(/^2@/);
    const image = await json<{ data: string; mimetype: string; value: string }>(
      await api(`/v1/instances/${id}/qr-code?format=image`),
    );
    expect(image.mimetype).toBe("image/png");
    expect(Buffer.from(image.data, "base64").subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );

    const phone = newPhone();
    await scanShownQr(c.simnetUrl, id, phone, { pushName: "Loja" });
    await c.waitForStatus(id, "WORKING");

    const inst = await json<{ instance: { phone: string; pushName: string } }>(await api(`/v1/instances/${id}`));
    expect(inst.instance.phone).toBe(phone);
    expect(inst.instance.pushName).toBe("Loja");
    const me = await json<{ id: string; jid: string; lid: string; pushName: string; messageCapping: object }>(
      await api(`/v1/instances/${id}/me`),
    );
    expect(me.id).toBe(`${phone}@c.us`);
    expect(me.lid).toMatch(/@lid$/);
    expect(me.messageCapping).toHaveProperty("totalQuota");
    await json(await api(`/v1/instances/${id}/capping`));
    await json(await api(`/v1/instances/${id}/timelock`));

    expect(await statuses(id)).toEqual(["STARTING", "SCAN_QR_CODE", "WORKING"]);
    const [first] = await c.events(id, "session.status");
    expect(first).toMatchObject({ event: "session.status", instanceId: id, provider: "sim" });
    expect(first?.id).toMatch(/^evt_[0-9a-z]{26}$/);
    const last = (await c.events(id, "session.status")).at(-1);
    expect(last?.me).toEqual({ id: `${phone}@c.us`, phone, pushName: "Loja" });
    expect(last?.payload).toMatchObject({ status: "WORKING", previousStatus: "SCAN_QR_CODE", reason: null });
  });

  it("the QR value rotates while waiting", async () => {
    const { id, token } = await c.createInstance();
    await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
    const seen = new Set<string>();
    const until = Date.now() + 5_000;
    while (seen.size < 3 && Date.now() < until) {
      const res = await c.as(token)(`/v1/instances/${id}/qr-code?format=raw`);
      if (res.status === 200) seen.add(((await res.json()) as { value: string }).value);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });

  it("format is required and checked", async () => {
    const { id, token } = await c.createInstance();
    const res = await c.as(token)(`/v1/instances/${id}/qr-code`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("validation_error");
  });
});

describe("pairing code", () => {
  it("pairs with an 8-character code typed on the phone", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
    const phone = newPhone();
    const out = await json<{ success: boolean; code: string }>(
      await api(`/v1/instances/${id}/pairing-code`, { method: "POST", json: { phoneNumber: `+${phone}` } }),
    );
    expect(out.success).toBe(true);
    expect(out.code).toMatch(/^[0-9A-Z]{8}$/);
    await json(await c.sim("POST", `/simnet/phones/${phone}/pairing-code`, { code: out.code }));
    await c.waitForStatus(id, "WORKING");
  });

  it("too many requests for one number → 429 too_many_attempts", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
    const phone = newPhone();
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await api(`/v1/instances/${id}/pairing-code`, { method: "POST", json: { phoneNumber: phone } });
      codes.push(res.status);
      if (res.status === 429) {
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("too_many_attempts");
      }
    }
    expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(codes.at(-1)).toBe(429);
  });

  it("a phone number in the wrong format → 422 details.phoneNumber", async () => {
    const { id, token } = await c.createInstance();
    const res = await c.as(token)(`/v1/instances/${id}/pairing-code`, { method: "POST", json: { phoneNumber: "abc" } });
    expect(res.status).toBe(422);
    expect(
      ((await res.json()) as { error: { details: Record<string, string> } }).error.details.phoneNumber,
    ).toBeTruthy();
  });
});

describe("stop, start, restart, logout", () => {
  it("stop keeps the pairing: start goes to WORKING without a QR", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    const stopped = await json<{ instance: { connectionStatus: string } }>(
      await api(`/v1/instances/${id}/stop`, { method: "POST" }),
    );
    expect(stopped.instance.connectionStatus).toBe("STOPPED");
    const conns = await json<{ connections: { instanceId: string }[] }>(await c.sim("GET", "/simnet/connections"));
    expect(conns.connections.filter((x) => x.instanceId === id)).toEqual([]);

    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "WORKING");
    const after = await statuses(id);
    expect(after.slice(-3)).toEqual(["STOPPED", "STARTING", "WORKING"]);
    expect(after.filter((s) => s === "SCAN_QR_CODE")).toHaveLength(1); // only the first pairing
  });

  it("restart reconnects", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    // The stored status is still WORKING while the restart begins: wait for the new WORKING.
    const before = (await statuses(id)).length;
    await json(await api(`/v1/instances/${id}/restart`, { method: "POST" }));
    await c.waitForStatuses(id, before, (after) => after.includes("WORKING"));
    await c.waitForStatus(id, "WORKING");
    expect((await statuses(id)).slice(before)).toEqual(["STARTING", "WORKING"]);
  });

  it("logout unpairs and removes the device: the next start needs a QR", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    const phone = newPhone();
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, phone);
    const out = await json<{ instance: { connectionStatus: string; phone: string } }>(
      await api(`/v1/instances/${id}/logout`, { method: "POST", json: { apps: { purge: true } } }),
    );
    expect(out.instance.connectionStatus).toBe("STOPPED");
    expect(out.instance.phone).toBe("");
    const account = await json<{ devices: unknown[] }>(await c.sim("GET", `/simnet/phones/${phone}`));
    expect(account.devices).toEqual([]);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
  });

  it("logout of a stopped instance removes the device on the phone too, without starting it", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    const phone = newPhone();
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, phone);
    await json(await api(`/v1/instances/${id}/stop`, { method: "POST" }));
    const before = (await statuses(id)).length;
    const out = await json<{ instance: { connectionStatus: string; phone: string } }>(
      await api(`/v1/instances/${id}/logout`, { method: "POST" }),
    );
    expect(out.instance).toMatchObject({ connectionStatus: "STOPPED", phone: "" });
    // A pod took it to unlink it on the network: the phone no longer lists the device.
    const account = await json<{ devices: unknown[] }>(await c.sim("GET", `/simnet/phones/${phone}`));
    expect(account.devices).toEqual([]);
    expect((await statuses(id)).slice(before)).not.toContain("WORKING");
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
  });

  it("logout of a stopped instance while the network cannot be reached: wiped here, and the status says the phone keeps the device", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    const phone = newPhone();
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, phone);
    await json(await api(`/v1/instances/${id}/stop`, { method: "POST" }));
    await json(await c.sim("POST", "/simnet/faults/outage", { seconds: 30 }));
    try {
      const out = await json<{ instance: { connectionStatus: string } }>(
        await api(`/v1/instances/${id}/logout`, { method: "POST" }),
      );
      expect(out.instance.connectionStatus).toBe("STOPPED");
      const last = (await c.events(id, "session.status")).at(-1);
      expect(last?.payload).toMatchObject({
        status: "STOPPED",
        reason: "device_still_linked",
        detail: expect.stringMatching(/remove it on the phone/),
      });
      const account = await json<{ devices: unknown[] }>(await c.sim("GET", `/simnet/phones/${phone}`));
      expect(account.devices).toHaveLength(1);
    } finally {
      await c.sim("POST", "/simnet/faults/outage", { seconds: 0 });
    }
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
  });

  it("the phone removing the device → FAILED with reason logged_out", async () => {
    const { id, token } = await c.createInstance();
    const phone = newPhone();
    await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, phone);
    await json(await c.sim("POST", `/simnet/phones/${phone}/logout`));
    await c.waitForStatus(id, "FAILED");
    const last = (await c.events(id, "session.status")).at(-1);
    expect(last?.payload.reason).toMatch(/logged_out/);
    const inst = await json<{ instance: { phone: string } }>(await c.as(token)(`/v1/instances/${id}`));
    expect(inst.instance.phone).toBe("");
  });
});

describe("races", () => {
  it("a stop that lands while the pod reconciles wins: nothing stays STARTING, nothing stays connected", async () => {
    // A volume check of the end state; it rarely hits the exact interleaving (a stop releasing
    // an instance while a reconcile that read the running set just before acquires it), so
    // the guard itself is tested deterministically in services/platform/src/leases.test.ts.
    const made = await Promise.all(Array.from({ length: 80 }, () => c.createInstance()));
    const manager = c.session!.manager;
    for (let round = 0; round < 3; round++) {
      await Promise.all(made.map(({ id, token }) => c.as(token)(`/v1/instances/${id}/start`, { method: "POST" })));
      const kicking = setInterval(() => manager.kick(), 5);
      await new Promise((r) => setTimeout(r, 20 * round));
      await Promise.all(made.map(({ id, token }) => c.as(token)(`/v1/instances/${id}/stop`, { method: "POST" })));
      clearInterval(kicking);
    }
    // Within some reconcile ticks (TTL/3 each), all three hold at once: every instance
    // STOPPED, no lease owner, no connection on the network.
    const endState = async () => {
      const statuses = await Promise.all(
        made.map(async ({ id }) => {
          const res = await c.admin("GET", `/v1/admin/instances/${id}`);
          return ((await res.json()) as { instance: { connectionStatus: string } }).instance.connectionStatus;
        }),
      );
      const owners = await Promise.all(made.map(({ id }) => c.platform.leases.owner(id)));
      const conns = (await (await c.sim("GET", "/simnet/connections")).json()) as {
        connections: { instanceId: string }[];
      };
      return {
        notStopped: statuses.filter((s) => s !== "STOPPED"),
        owners: owners.filter(Boolean),
        connections: conns.connections.filter((x) => made.some((m) => m.id === x.instanceId)),
      };
    };
    const settled = (s: Awaited<ReturnType<typeof endState>>) =>
      s.notStopped.length === 0 && s.owners.length === 0 && s.connections.length === 0;
    const until = Date.now() + 20_000;
    let state = await endState();
    while (!settled(state) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      state = await endState();
    }
    expect(state.notStopped).toEqual([]);
    expect(state.owners).toEqual([]);
    expect(state.connections).toEqual([]);
  }, 60_000);
});

describe("a lease lost while the instance is stopped", () => {
  it("the pod that lost it leaves STOPPED (reason lease_lost): nobody else will own it to say so", async () => {
    const { id, token } = await c.createInstance();
    await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    // What a pod too slow to renew sees when a stop came in meanwhile: the instance left the
    // running set and its lease expired before the pod's release ran.
    await c.platform.redis.srem(c.platform.keys.running, id);
    await c.platform.redis.del(c.platform.keys.lease(id));
    await c.waitForStatus(id, "STOPPED");
    const last = (await c.events(id, "session.status")).at(-1)!.payload as { status: string; reason?: string };
    expect(last).toMatchObject({ status: "STOPPED", reason: "lease_lost" });
    expect(await c.platform.leases.owner(id)).toBeNull();
  });
});

describe("network faults", () => {
  it("a network the instance cannot reach: STARTING with reason network_unreachable, what failed and when it tries next, on the instance, its events and the QR route", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    await json(await c.sim("POST", "/simnet/faults/unreachable", { instanceId: id, seconds: 60 }));
    try {
      type Reason = { reason: string; detail: string | null; retryAt: string | null };
      let instance: { connectionStatus: string; statusReason?: Reason | null } = { connectionStatus: "" };
      const until = Date.now() + 20_000;
      while (instance.statusReason?.reason !== "network_unreachable" && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        instance = (await json<{ instance: typeof instance }>(await api(`/v1/instances/${id}`))).instance;
      }
      expect(instance).toMatchObject({
        connectionStatus: "STARTING",
        statusReason: { reason: "network_unreachable", detail: expect.stringMatching(/socket hang up|ECONNRESET/) },
      });
      expect(Date.parse(instance.statusReason?.retryAt ?? "")).toBeGreaterThan(Date.now() - 1_000);
      const event = (await c.events(id, "session.status")).findLast((e) => e.payload.reason === "network_unreachable");
      expect(event?.payload).toMatchObject({
        status: "STARTING",
        detail: expect.any(String),
        retryAt: expect.any(Number),
      });
      // The QR route says why, and that it is worth asking again.
      const qr = await api(`/v1/instances/${id}/qr-code?format=raw`);
      expect(qr.status).toBe(503);
      expect(Number(qr.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await qr.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("network_unavailable");
      expect(body.error.message).toMatch(/STARTING \(network_unreachable: .+\)/);
    } finally {
      await c.sim("POST", "/simnet/faults/unreachable", { instanceId: id, seconds: 0 });
    }
    await c.waitForStatus(id, "WORKING", 30_000);
    const back = (await json<{ instance: { statusReason?: unknown } }>(await api(`/v1/instances/${id}`))).instance;
    expect(back.statusReason).toBeNull();
  });

  it("an outage: the connection drops, then reconnects by itself", async () => {
    const { id, token } = await c.createInstance();
    await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    const before = (await statuses(id)).length;
    await json(await c.sim("POST", "/simnet/faults/outage", { seconds: 1 }));
    // STARTING lasts only until the reconnection: read from the event history, not polled.
    const startingThenWorking = (s: string[]) => s.includes("STARTING") && s.includes("WORKING", s.indexOf("STARTING"));
    await c.waitForStatuses(id, before, startingThenWorking);
    await c.waitForStatus(id, "WORKING", 15_000);
    const after = (await statuses(id)).slice(before);
    expect(after[0]).toBe("STARTING");
    expect(after.at(-1)).toBe("WORKING");
  });

  it("a dropped connection reconnects", async () => {
    const { id, token } = await c.createInstance();
    await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    await json(await c.sim("POST", "/simnet/faults/drop", { instanceId: id }));
    await c.waitForStatus(id, "WORKING", 15_000);
    const stats = await json<{ conflicts: number; instanceOverlaps: number }>(await c.sim("GET", "/simnet/stats"));
    expect(stats.conflicts).toBe(0);
    expect(stats.instanceOverlaps).toBe(0);
  });
});

describe("routes in the wrong state", () => {
  it("answer the spec's errors, never 500", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    const expectCode = async (res: Response, status: number, code: string) => {
      const body = (await res.json()) as { error: { code: string } };
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body.error.code).toBe(code);
    };
    await expectCode(await api(`/v1/instances/${id}/qr-code?format=raw`), 422, "instance_not_connected");
    await expectCode(await api(`/v1/instances/${id}/me`), 422, "instance_not_connected");
    await expectCode(
      await api(`/v1/instances/${id}/pairing-code`, { method: "POST", json: { phoneNumber: "5511999999999" } }),
      422,
      "instance_not_connected",
    );
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.pair(id, newPhone());
    await expectCode(await api(`/v1/instances/${id}/qr-code?format=image`), 422, "instance_not_connected");
    await expectCode(await api(`/v1/instances/${id}/passkey/challenge`), 422, "instance_not_connected");
  });

  it("official instances have no QR pairing (501 not_supported_by_provider); without credentials start ends FAILED", async () => {
    const { id, token } = await c.createInstance({ kind: "official", provider: undefined });
    const res = await c.as(token)(`/v1/instances/${id}/qr-code?format=raw`);
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_supported_by_provider");
    const start = await c.as(token)(`/v1/instances/${id}/start`, { method: "POST" });
    expect(start.status).toBe(200);
    await c.waitForStatus(id, "FAILED");
    const failed = (await c.events(id, "session.status")).at(-1)!;
    expect(String(failed.payload.reason)).toMatch(/^missing_credentials/);
  });
});

describe("passkey pairing", () => {
  it("challenge → assertion → confirmation → confirm pairs the number", async () => {
    const { id, token } = await c.createInstance();
    const api = c.as(token);
    await api(`/v1/instances/${id}/start`, { method: "POST" });
    await c.waitForStatus(id, "SCAN_QR_CODE");
    const challenge = await json<{ challenge: string; rpId: string; allowCredentials: { id: string }[] }>(
      await api(`/v1/instances/${id}/passkey/challenge`),
    );
    const b64url = (s: string) => Buffer.from(s).toString("base64url");
    const clientDataJSON = b64url(JSON.stringify({ type: "webauthn.get", challenge: challenge.challenge }));
    const credId = challenge.allowCredentials[0]?.id ?? b64url("cred");
    await json(
      await api(`/v1/instances/${id}/passkey`, {
        method: "POST",
        json: {
          id: credId,
          rawId: credId,
          type: "public-key",
          // simnet's passkey names the number in userHandle (docs/simnet.md)
          response: {
            authenticatorData: b64url("auth"),
            clientDataJSON,
            signature: b64url("sig"),
            userHandle: b64url(newPhone()),
          },
        },
      }),
    );
    const conf = await json<{ code: string }>(await api(`/v1/instances/${id}/passkey/confirmation`));
    expect(conf.code).toBeTruthy();
    await json(await api(`/v1/instances/${id}/passkey/confirm`, { method: "POST" }));
    await c.waitForStatus(id, "WORKING");
  });
});
