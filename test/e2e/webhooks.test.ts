// Webhooks end to end: routes (spec 4.13), signed deliveries (6.1–6.3), retries on a real
// Temporal server with a shortened schedule (the real one is asserted in the workflow test),
// deactivation on 410 and after 24 h, reactivation, manual resend, rotate-secret, recent events.
import { createServer as createSmtpSink } from "node:net";
import { verify } from "@gw/webhook-verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

type Json = Record<string, any>;
let c: Cluster;
let rx: Receiver;
let smtp: { port: number; mails: string[]; close(): void };

/** A minimal SMTP sink: speaks just enough SMTP for nodemailer and keeps each message's DATA. */
async function startSmtpSink() {
  const mails: string[] = [];
  const server = createSmtpSink((sock) => {
    let data: string | null = null;
    sock.write("220 sink ESMTP\r\n");
    let buf = "";
    sock.on("data", (chunk) => {
      buf += chunk.toString();
      for (let i = buf.indexOf("\r\n"); i >= 0; i = buf.indexOf("\r\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (data !== null) {
          if (line === ".") {
            mails.push(data);
            data = null;
            sock.write("250 queued\r\n");
          } else data += `${line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === "EHLO" || cmd === "HELO") sock.write("250 sink\r\n");
        else if (cmd === "DATA") {
          data = "";
          sock.write("354 go\r\n");
        } else if (cmd === "QUIT") sock.end("221 bye\r\n");
        else sock.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as { port: number }).port, mails, close: () => server.close() };
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  c = await startCluster({
    worker: { retryScheduleMs: [200, 200, 200, 200] },
    env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SMTP_FROM: "gw@test.local" },
  });
  rx = await startReceiver();
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
  smtp?.close();
});

async function json<T = Json>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function instanceWithHook(events: string[] = ["*"], url = rx.url) {
  const inst = await c.createInstance();
  const api = c.as(inst.token);
  const hook = await json(
    await api(`/v1/instances/${inst.id}/webhooks`, { method: "POST", json: { url, events } }),
    201,
  );
  return { ...inst, api, hook };
}

/** Publishes an event as a producer would (session pods, the queue): the dispatcher takes it from there. */
async function publish(instanceId: string, event: "session.status" | "message" = "session.status", payload: Json = {}) {
  const instance = await c.platform.instances.require(instanceId);
  const env = await c.platform.events.publish(instance, event, { status: "WORKING", ...payload });
  if (!env) throw new Error("suppressed");
  return env;
}

describe("routes", () => {
  it("create answers the secret once; list, read, patch, delete", async () => {
    const { id, api, hook } = await instanceWithHook(["session.status"]);
    expect(hook).toMatchObject({ url: rx.url, events: ["session.status"], active: true });
    expect(hook.id).toMatch(/^wh_/);
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.responseTime).toEqual({ medianMs: null, p95Ms: null });

    const list = await json<{ data: Json[] }>(await api(`/v1/instances/${id}/webhooks`));
    expect(list.data.map((w) => w.id)).toEqual([hook.id]);
    expect(list.data[0]).not.toHaveProperty("secret");
    const one = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`));
    expect(one).not.toHaveProperty("secret");

    const patched = await json(
      await api(`/v1/instances/${id}/webhooks/${hook.id}`, {
        method: "PATCH",
        json: { events: ["message", "message"] },
      }),
    );
    expect(patched.events).toEqual(["message"]);
    expect(patched.url).toBe(rx.url);
    const all = await json(
      await api(`/v1/instances/${id}/webhooks/${hook.id}`, { method: "PATCH", json: { events: ["message", "*"] } }),
    );
    expect(all.events).toEqual(["*"]);

    await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`, { method: "DELETE" }));
    const gone = await api(`/v1/instances/${id}/webhooks/${hook.id}`);
    expect(gone.status).toBe(404);
  });

  it("at most 5 per instance; another instance's webhook is not found; bad input is 422", async () => {
    const { id, api } = await instanceWithHook();
    for (let i = 0; i < 4; i++)
      await json(
        await api(`/v1/instances/${id}/webhooks`, { method: "POST", json: { url: rx.url, events: ["*"] } }),
        201,
      );
    const sixth = await json<{ error: Json }>(
      await api(`/v1/instances/${id}/webhooks`, { method: "POST", json: { url: rx.url, events: ["*"] } }),
      422,
    );
    expect(sixth.error.code).toBe("validation_error");
    const other = await instanceWithHook();
    const res = await api(`/v1/instances/${id}/webhooks/${other.hook.id}`);
    expect(res.status).toBe(404);
    const bad = await json<{ error: Json }>(
      await api(`/v1/instances/${id}/webhooks`, { method: "POST", json: { url: rx.url, events: ["nope"] } }),
      422,
    );
    expect(bad.error.details).toHaveProperty("events.0");
    const notUrl = await json<{ error: Json }>(
      await api(`/v1/instances/${id}/webhooks`, { method: "POST", json: { url: "not a url", events: ["*"] } }),
      422,
    );
    expect(notUrl.error.details).toHaveProperty("url");
  });
});

describe("delivery", () => {
  it("POSTs the envelope with the spec's headers, signed over t.body", async () => {
    const { id, hook } = await instanceWithHook(["session.status"]);
    const env = await publish(id);
    const [got] = (await rx.waitFor((all) => all.some((r) => r.envelope.id === env.id))).filter(
      (r) => r.envelope.id === env.id,
    );
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["x-service-event"]).toBe("session.status");
    expect(got?.headers["x-service-event-id"]).toBe(env.id);
    expect(got?.headers["x-service-delivery"]).toMatch(/^dlv_/);
    expect(JSON.parse(got!.rawBody)).toEqual(env);
    const header = String(got?.headers["x-service-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verify({ header, rawBody: got!.rawBody, secret: hook.secret }).ok).toBe(true);
    expect(verify({ header, rawBody: `${got!.rawBody} `, secret: hook.secret })).toMatchObject({ ok: false });
    expect(verify({ header, rawBody: got!.rawBody, secret: "whsec_wrong" })).toMatchObject({ ok: false });
  });

  it("only subscribed kinds are delivered; `*` gets everything", async () => {
    const only = await instanceWithHook(["message"]);
    const env = await publish(only.id, "session.status");
    const msg = await publish(only.id, "message", { chatId: "5511999999999@c.us" });
    await rx.waitFor((all) => all.some((r) => r.envelope.id === msg.id));
    expect(rx.received.some((r) => r.envelope.id === env.id)).toBe(false);
  });

  it("deliveries are listed newest first with durationMs; responseTime follows successes", async () => {
    const { id, api, hook } = await instanceWithHook(["session.status"]);
    const sent = [await publish(id), await publish(id), await publish(id)];
    await rx.waitFor((all) => sent.every((e) => all.some((r) => r.envelope.id === e.id)));
    const until = Date.now() + 5_000;
    let page: { data: Json[]; nextCursor: string | null } = { data: [], nextCursor: null };
    while (Date.now() < until) {
      page = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}/deliveries?limit=2`));
      if (page.data.length === 2 && page.data.every((d) => d.status === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).toMatchObject({
      webhookId: hook.id,
      status: "succeeded",
      attempt: 1,
      httpStatus: 200,
      error: null,
    });
    expect(typeof page.data[0]?.durationMs).toBe("number");
    expect(page.nextCursor).toBeTruthy();
    const rest = await json<{ data: Json[]; nextCursor: string | null }>(
      await api(`/v1/instances/${id}/webhooks/${hook.id}/deliveries?limit=2&cursor=${page.nextCursor}`),
    );
    expect(rest.data).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    const ids = [...page.data, ...rest.data].map((d) => d.eventId);
    expect(new Set(ids)).toEqual(new Set(sent.map((e) => e.id)));
    const w = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`));
    expect(w.responseTime.medianMs).toBeGreaterThanOrEqual(0);
    expect(w.responseTime.p95Ms).toBeGreaterThanOrEqual(w.responseTime.medianMs);
  });
});

describe("retries on Temporal", () => {
  it("a failing endpoint is retried until it answers 2xx; same delivery id across attempts", async () => {
    const { id, api, hook } = await instanceWithHook(["session.status"]);
    const env = await publish(id);
    let seen = 0;
    rx.respond = (r) => (r.envelope.id === env.id && ++seen <= 2 ? 500 : 200);
    try {
      const got = await rx.waitFor((all) => all.filter((r) => r.envelope.id === env.id).length >= 3, 20_000);
      const attempts = got.filter((r) => r.envelope.id === env.id);
      expect(new Set(attempts.map((r) => r.headers["x-service-delivery"])).size).toBe(1);
      await expect
        .poll(
          async () =>
            (await json<{ data: Json[] }>(await api(`/v1/instances/${id}/webhooks/${hook.id}/deliveries`))).data.find(
              (d) => d.eventId === env.id,
            ),
          { timeout: 5_000 },
        )
        .toMatchObject({ status: "succeeded", attempt: 3, httpStatus: 200 });
      // A success stops the failure clock.
      expect((await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`))).failingSince).toBeNull();
    } finally {
      rx.respond = 200;
    }
  });

  it("410 deactivates at once, with an operator record; PATCH reactivates", async () => {
    const { id, api, hook } = await instanceWithHook(["session.status"]);
    const env = await publish(id);
    rx.respond = (r) => (r.envelope.instanceId === id ? 410 : 200);
    try {
      await expect
        .poll(async () => (await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`))).active, {
          timeout: 10_000,
        })
        .toBe(false);
      const w = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}`));
      expect(w.deactivationReason).toMatch(/410/);
      expect(rx.received.filter((r) => r.envelope.id === env.id)).toHaveLength(1); // no retries after 410
      const records = await json<{ data: Json[] }>(await c.admin("GET", "/v1/admin/webhook-deactivations"));
      expect(records.data.find((r) => r.webhookId === hook.id)).toMatchObject({ instanceId: id, url: rx.url });
    } finally {
      rx.respond = 200;
    }
    // Deactivated: new events are not delivered.
    const quiet = await publish(id);
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received.some((r) => r.envelope.id === quiet.id)).toBe(false);
    // Reactivated: they are again.
    const back = await json(
      await api(`/v1/instances/${id}/webhooks/${hook.id}`, { method: "PATCH", json: { active: true } }),
    );
    expect(back).toMatchObject({ active: true, deactivatedAt: null, deactivationReason: null });
    const next = await publish(id);
    await rx.waitFor((all) => all.some((r) => r.envelope.id === next.id));
  });

  it("failing without a success for 24 h deactivates and e-mails the account owner", async () => {
    const acc = await json<{ account: Json }>(
      await c.admin("POST", "/v1/admin/accounts", { name: "Loja", email: "dono@loja.test" }),
      201,
    );
    const inst = await c.createInstance({ accountId: acc.account.id });
    const h = await json(
      await c.as(inst.token)(`/v1/instances/${inst.id}/webhooks`, {
        method: "POST",
        json: { url: rx.url, events: ["*"] },
      }),
      201,
    );
    // The failure clock started 24 h ago.
    await c.platform.redis.call(
      "JSON.SET",
      c.platform.keys.webhookDoc(h.id),
      "$.failingSince",
      String(Date.now() - 24 * 3_600_000 - 1_000),
    );
    rx.respond = (r) => (r.envelope.instanceId === inst.id ? 503 : 200);
    try {
      await publish(inst.id);
      await expect
        .poll(async () => (await json(await c.as(inst.token)(`/v1/instances/${inst.id}/webhooks/${h.id}`))).active, {
          timeout: 10_000,
        })
        .toBe(false);
      const w = await json(await c.as(inst.token)(`/v1/instances/${inst.id}/webhooks/${h.id}`));
      expect(w.deactivationReason).toMatch(/24 h/);
      await expect.poll(() => smtp.mails.find((m) => m.includes(h.id)), { timeout: 5_000 }).toBeTruthy();
      const mail = smtp.mails.find((m) => m.includes(h.id)) ?? "";
      expect(mail).toMatch(/To: dono@loja\.test/i);
      expect(mail).toContain(rx.url);
    } finally {
      rx.respond = 200;
    }
  });
});

describe("the worker's own port", () => {
  it("answers health, readiness and Prometheus metrics of the dispatcher", async () => {
    const url = c.worker?.healthUrl;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toMatchObject({ status: "ready", checks: { redis: "ok", temporal: "ok" } });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/webhook_deliveries_total\{by="dispatcher",outcome="succeeded"\} \d+/);
    expect(metrics).toContain("webhook_delivery_duration_seconds_bucket");
  });
});

describe("manual operations", () => {
  it("retry resends one delivery with a new X-Service-Delivery and the same event", async () => {
    const { id, api, hook } = await instanceWithHook(["session.status"]);
    const env = await publish(id);
    await rx.waitFor((all) => all.some((r) => r.envelope.id === env.id));
    // The dispatcher records the delivery after the receiver's answer: wait until it is listed.
    let original: Json | undefined;
    await expect
      .poll(
        async () => {
          original = (
            await json<{ data: Json[] }>(await api(`/v1/instances/${id}/webhooks/${hook.id}/deliveries`))
          ).data.find((d) => d.eventId === env.id);
          return original?.status;
        },
        { timeout: 10_000 },
      )
      .toBe("succeeded");
    const again = await json(
      await api(`/v1/instances/${id}/webhooks/${hook.id}/deliveries/${original?.id}/retry`, { method: "POST" }),
    );
    expect(again).toMatchObject({ eventId: env.id, manual: true, status: "succeeded", attempt: 1 });
    expect(again.id).not.toBe(original?.id);
    const copies = rx.received.filter((r) => r.envelope.id === env.id);
    expect(copies).toHaveLength(2);
    expect(copies[1]?.headers["x-service-delivery"]).toBe(again.id);
    expect(copies[0]?.headers["x-service-delivery"]).not.toBe(copies[1]?.headers["x-service-delivery"]);
  });

  it("rotate-secret: later deliveries are signed with the new secret only", async () => {
    const { id, api, hook } = await instanceWithHook(["webhook.test", "session.status"]);
    const rotated = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}/rotate-secret`, { method: "POST" }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    const env = await publish(id);
    const [got] = (await rx.waitFor((all) => all.some((r) => r.envelope.id === env.id))).filter(
      (r) => r.envelope.id === env.id,
    );
    const header = String(got?.headers["x-service-signature"]);
    expect(verify({ header, rawBody: got!.rawBody, secret: rotated.secret }).ok).toBe(true);
    expect(verify({ header, rawBody: got!.rawBody, secret: hook.secret }).ok).toBe(false);
  });

  it("test sends a webhook.test event now and answers the delivery", async () => {
    const { id, api, hook } = await instanceWithHook(["message"]);
    const d = await json(await api(`/v1/instances/${id}/webhooks/${hook.id}/test`, { method: "POST" }));
    expect(d).toMatchObject({ status: "succeeded", httpStatus: 200, manual: true, event: "webhook.test" });
    const got = rx.received.find((r) => r.headers["x-service-delivery"] === d.id);
    expect(got?.envelope).toMatchObject({ event: "webhook.test", instanceId: id });
  });
});

describe("recent events and ignore settings", () => {
  it("GET /events: newest first, kind filter, since/until, cursor pages", async () => {
    const { id, api } = await instanceWithHook(["message"]);
    const a = await publish(id, "session.status");
    const b = await publish(id, "message", { chatId: "5511988887777@c.us" });
    const cEv = await publish(id, "session.status");
    const all = await json<{ data: Json[]; nextCursor: string | null }>(await api(`/v1/instances/${id}/events`));
    expect(all.data.map((e) => e.id)).toEqual([cEv.id, b.id, a.id]);
    expect(all.data[1]).toEqual(b);
    const onlyStatus = await json<{ data: Json[] }>(await api(`/v1/instances/${id}/events?kind=session.status`));
    expect(onlyStatus.data.map((e) => e.id)).toEqual([cEv.id, a.id]);
    const page1 = await json<{ data: Json[]; nextCursor: string }>(await api(`/v1/instances/${id}/events?limit=2`));
    expect(page1.data.map((e) => e.id)).toEqual([cEv.id, b.id]);
    const page2 = await json<{ data: Json[]; nextCursor: string | null }>(
      await api(`/v1/instances/${id}/events?limit=2&cursor=${page1.nextCursor}`),
    );
    expect(page2.data.map((e) => e.id)).toEqual([a.id]);
    expect(page2.nextCursor).toBeNull();
    const window = await json<{ data: Json[] }>(
      await api(`/v1/instances/${id}/events?since=${b.timestamp}&until=${b.timestamp}`),
    );
    expect(window.data.map((e) => e.id)).toContain(b.id);
    const bad = await api(`/v1/instances/${id}/events?kind=nope`);
    expect(bad.status).toBe(422);
  });

  it("ignore.groups suppresses group events at the source", async () => {
    const { id, api } = await instanceWithHook(["message"]);
    await json(
      await api(`/v1/instances/${id}/settings`, {
        method: "PATCH",
        json: { ignore: { groups: true, channels: true } },
      }),
    );
    const instance = await c.platform.instances.require(id);
    expect(await c.platform.events.publish(instance, "message", { chatId: "120363000000000001@g.us" })).toBeNull();
    expect(await c.platform.events.publish(instance, "message", { chatId: "123@newsletter" })).toBeNull();
    const kept = await c.platform.events.publish(instance, "message", { chatId: "5511999990000@c.us" });
    expect(kept).not.toBeNull();
    const events = await json<{ data: Json[] }>(await api(`/v1/instances/${id}/events`));
    expect(events.data.map((e) => e.payload.chatId)).toEqual(["5511999990000@c.us"]);
  });
});
