// The provider contract's messaging operations on simnet, through the session pod's API (the
// send routes that use them arrive with the sending issue).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531988880001" };
const b = { id: "", token: "", phone: "5531988880002" };

beforeAll(async () => {
  c = await startCluster({ simnet: { ackDelayMs: 20 } });
  for (const inst of [a, b]) {
    Object.assign(inst, await c.createInstance());
    await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
    await c.pair(inst.id, inst.phone);
  }
});
afterAll(() => c?.close());

const api = () => {
  const m = c.session?.manager;
  if (!m) throw new Error("no session pod");
  return m;
};

it("send: the other number's device receives exactly what was sent", async () => {
  const sent = await api().send(
    a.id,
    `${b.phone}@c.us`,
    { type: "text", text: "olá, tudo bem?" },
    { id: "gwtest0001" },
  );
  expect(sent).toMatchObject({ id: "gwtest0001", chatId: `${b.phone}@c.us` });
  expect(sent.timestamp).toBeGreaterThan(1_700_000_000);
  // Idempotent on our id: a retry does not send twice.
  const again = await api().send(
    a.id,
    `${b.phone}@c.us`,
    { type: "text", text: "olá, tudo bem?" },
    { id: "gwtest0001" },
  );
  expect(again.id).toBe(sent.id);
  const out = (await (await c.sim("GET", `/simnet/phones/${a.phone}/sent`)).json()) as {
    messages: { id: string; message: { type: string; text: string } }[];
  };
  expect(out.messages.filter((m) => m.id === "gwtest0001")).toHaveLength(1);
  expect(out.messages.find((m) => m.id === "gwtest0001")?.message).toMatchObject({
    type: "text",
    text: "olá, tudo bem?",
  });
});

it("send media: bytes and mimetype arrive intact", async () => {
  const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]);
  const sent = await api().send(a.id, `${b.phone}@c.us`, {
    type: "image",
    media: { data: bytes.toString("base64"), mimetype: "image/jpeg" },
    caption: "foto",
  });
  const out = (await (await c.sim("GET", `/simnet/phones/${a.phone}/sent`)).json()) as {
    messages: { id: string; message: { media: { data: string; mimetype: string }; caption: string } }[];
  };
  const m = out.messages.find((x) => x.id === sent.id)?.message;
  expect(Buffer.from(m?.media.data ?? "", "base64")).toEqual(bytes);
  expect(m?.media.mimetype).toBe("image/jpeg");
  expect(m?.caption).toBe("foto");
});

it("send to a number that has no account → network_rejected", async () => {
  await expect(api().send(a.id, "5599900000000@c.us", { type: "text", text: "oi" })).rejects.toMatchObject({
    code: "network_rejected",
  });
});

it("checkExists answers the registered chat id, with the Brazilian ninth digit resolved", async () => {
  await c.sim("POST", "/simnet/phones", { phone: "553188887777" }); // registered without the 9
  expect(await api().checkExists(a.id, b.phone)).toMatchObject({ exists: true, chatId: `${b.phone}@c.us` });
  expect(await api().checkExists(a.id, "5531988887777")).toMatchObject({ exists: true, chatId: "553188887777@c.us" });
  expect(await api().checkExists(a.id, "5599900000001")).toMatchObject({ exists: false });
});

it("presence: typing shows on the network", async () => {
  await api().presence(a.id, "composing", `${b.phone}@c.us`);
  const log = (await (await c.sim("GET", `/simnet/phones/${a.phone}/presence-log`)).json()) as {
    presences: { state: string; to?: string }[];
  };
  expect(log.presences.at(-1)).toMatchObject({ state: "composing" });
});

it("markRead: the sender's message becomes read", async () => {
  const sent = await api().send(a.id, `${b.phone}@c.us`, { type: "text", text: "leu?" });
  await api().markRead(b.id, `${a.phone}@c.us`, [sent.id]);
  const until = Date.now() + 5_000;
  let status = "";
  while (Date.now() < until && status !== "read") {
    const out = (await (await c.sim("GET", `/simnet/phones/${a.phone}/sent`)).json()) as {
      messages: { id: string; status: string }[];
    };
    status = out.messages.find((m) => m.id === sent.id)?.status ?? "";
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(status).toBe("read");
});

it("operations on an instance this pod does not hold → 503 network_unavailable", async () => {
  await expect(api().send("i0000000000000000000000000", "x@c.us", { type: "text", text: "x" })).rejects.toMatchObject({
    code: "network_unavailable",
  });
});

describe("public routes on the provider operations", () => {
  const call = (path: string, init?: RequestInit & { json?: unknown }) =>
    c.as(a.token)(`/v1/instances/${a.id}${path}`, init);

  it("GET /contacts/check-exists answers the registered chat id", async () => {
    const yes = await call(`/contacts/check-exists?phone=${b.phone}`);
    expect(yes.status).toBe(200);
    expect(await yes.json()).toMatchObject({ exists: true, chatId: `${b.phone}@c.us` });
    const no = await call("/contacts/check-exists?phone=5599900000123");
    expect(await no.json()).toMatchObject({ exists: false });
    const bad = await call("/contacts/check-exists?phone=abc");
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { details: Record<string, string> } }).error.details.phone).toBeTruthy();
  });

  it("GET /messages/new-id gives distinct ids the network accepts as ours", async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async () => ((await (await call("/messages/new-id")).json()) as { id: string }).id),
    );
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^3EB0[0-9A-F]{18}$/);
    const sent = await api().send(a.id, `${b.phone}@c.us`, { type: "text", text: "com id" }, { id: ids[0] });
    expect(sent.id).toBe(ids[0]);
  });

  it("POST /typing/start|stop shows and removes the indicator; phone is an alias; chat required", async () => {
    const start = await call("/typing/start", { method: "POST", json: { phone: b.phone } });
    expect(start.status).toBe(200);
    expect(await start.json()).toEqual({ success: true });
    const stop = await call("/typing/stop", { method: "POST", json: { chatId: `${b.phone}@c.us` } });
    expect(stop.status).toBe(200);
    const log = (await (await c.sim("GET", `/simnet/phones/${a.phone}/presence-log`)).json()) as {
      presences: { state: string }[];
    };
    expect(log.presences.slice(-2).map((p) => p.state)).toEqual(["composing", "paused"]);
    const missing = await call("/typing/start", { method: "POST" });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { details: Record<string, string> } }).error.details.chatId).toBe(
      "informe o chatId",
    );
    // Channels and status have no typing indicator: refused here with the reason, not by the network.
    for (const chatId of ["status@broadcast", "120363401234567890@newsletter"]) {
      const res = await call("/typing/start", { method: "POST", json: { chatId } });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { code: string; details: Record<string, string> } };
      expect(body.error.code).toBe("validation_error");
      expect(body.error.details.chatId).toMatch(
        /^o indicador de digitação só existe em conversas com pessoas e grupos/,
      );
    }
  });

  it("not WORKING → 422 instance_not_connected", async () => {
    const idle = await c.createInstance();
    const res = await c.as(idle.token)(`/v1/instances/${idle.id}/contacts/check-exists?phone=${b.phone}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("instance_not_connected");
  });
});
