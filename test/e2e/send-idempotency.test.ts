// `Idempotency-Key` on the send routes and the free-trial daily limit (spec 8), over real HTTP,
// checked against what simnet says was actually sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { expectError, expectJson } from "../support/e2e-helpers.ts";

let c: Cluster;
// Numbers of this file: 5531963330xxx.
type Inst = { id: string; token: string; phone: string };
const k: Inst = { id: "", token: "", phone: "5531963330001" }; // active: the idempotency tests
const k2: Inst = { id: "", token: "", phone: "5531963330002" }; // active: another instance, same keys
const t: Inst = { id: "", token: "", phone: "5531963330011" }; // trialing: the daily limit
const t2: Inst = { id: "", token: "", phone: "5531963330012" }; // trialing: replays do not count
const sibling: Inst = { id: "", token: "", phone: "5531963330013" }; // t's account, second instance: active
const t3: Inst = { id: "", token: "", phone: "5531963330014" }; // trialing: reactions count
const b = "5531963330099"; // a virtual contact
const TRIAL_LIMIT = 3;

type Answer = { status: number; body: any; headers: Headers };

function client(inst: Inst) {
  return async (route: string, json: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await c.as(inst.token)(`/v1/instances/${inst.id}/messages/${route}`, {
      method: "POST",
      json,
      headers,
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
}

async function sentIds(phone: string): Promise<string[]> {
  const res = await c.sim("GET", `/simnet/phones/${phone}/sent`);
  return ((await expectJson(res)) as { messages: { id: string }[] }).messages.map((m) => m.id);
}

const networkId = (apiId: string) => apiId.split("_")[2]!;

async function instanceDoc(id: string) {
  const res = await c.admin("GET", `/v1/admin/instances/${id}`);
  return ((await expectJson(res)) as { instance: { billingStatus: string; accountId: string } }).instance;
}

async function startAndPair(inst: Inst) {
  await c.as(inst.token)(`/v1/instances/${inst.id}/start`, { method: "POST" });
  await c.pair(inst.id, inst.phone);
}

let key = 0;
const newKey = () => `idem-${Date.now().toString(36)}-${++key}`;

beforeAll(async () => {
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    env: { TRIAL_DAILY_MESSAGES: String(TRIAL_LIMIT), RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  Object.assign(k, await c.createInstance({ billingStatus: "active" }));
  Object.assign(k2, await c.createInstance({ billingStatus: "active" }));
  Object.assign(t, await c.createInstance());
  Object.assign(t2, await c.createInstance());
  const { accountId } = await instanceDoc(t.id);
  Object.assign(sibling, await c.createInstance({ accountId }));
  Object.assign(t3, await c.createInstance());
  for (const inst of [k, k2, t, t2, sibling, t3]) await startAndPair(inst);
  const res = await c.sim("POST", "/simnet/phones", { phone: b, pushName: "Bia" });
  expect(res.status).toBeLessThan(300);
}, 60_000);
afterAll(() => c?.close());

describe("Idempotency-Key", () => {
  const send = client(k); // reads k at call time

  it("the same key twice: the same answer, one message on the network", async () => {
    const key = newKey();
    const body = { phone: b, text: "uma vez só" };
    const first = await send("text", body, { "idempotency-key": key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ chatId: `${b}@c.us`, status: "sent" });
    const second = await send("text", body, { "idempotency-key": key });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    const ids = await sentIds(k.phone);
    expect(ids.filter((id) => id === networkId(first.body.id))).toHaveLength(1);
    const events = (await c.events(k.id, "message.any")).filter((ev) => ev.payload.id === first.body.id);
    expect(events).toHaveLength(1);
  });

  it("the same body with its fields in another order is the same request", async () => {
    const key = newKey();
    const first = await send(
      "image",
      { phone: b, file: { data: "iVBORw0K", mimetype: "image/png" }, caption: "c" },
      {
        "idempotency-key": key,
      },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const second = await send(
      "image",
      { caption: "c", file: { mimetype: "image/png", data: "iVBORw0K" }, phone: b },
      { "idempotency-key": key },
    );
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body).toEqual(first.body);
  });

  it("five concurrent identical requests with one key: one send, five equal answers", async () => {
    const key = newKey();
    const before = (await sentIds(k.phone)).length;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => send("text", { phone: b, text: "corrida" }, { "idempotency-key": key })),
    );
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(201);
      expect(a.body).toEqual(answers[0]!.body);
    }
    const ids = await sentIds(k.phone);
    expect(ids).toHaveLength(before + 1);
    expect(ids.filter((id) => id === networkId(answers[0]!.body.id))).toHaveLength(1);
  });

  it("the same key with another body or another route → 422 details['Idempotency-Key']", async () => {
    const key = newKey();
    const first = await send("text", { phone: b, text: "original" }, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const before = (await sentIds(k.phone)).length;
    for (const [route, body] of [
      ["text", { phone: b, text: "outro texto" }],
      ["text", { chatId: b, text: "original" }],
      ["location", { phone: b, latitude: 1, longitude: 2, title: "original" }],
    ] as const) {
      const res = await c.as(k.token)(`/v1/instances/${k.id}/messages/${route}`, {
        method: "POST",
        json: body,
        headers: { "idempotency-key": key },
      });
      const err = await expectError(res, 422, "validation_error");
      expect(err.error.details?.["Idempotency-Key"]).toBe("chave já usada com outra requisição");
    }
    expect(await sentIds(k.phone)).toHaveLength(before);
    // The original still replays.
    expect((await send("text", { phone: b, text: "original" }, { "idempotency-key": key })).body).toEqual(first.body);
  });

  it("a key that is not 1–255 visible ASCII characters → 422 details['Idempotency-Key']", async () => {
    const res = await c.as(k.token)(`/v1/instances/${k.id}/messages/text`, {
      method: "POST",
      json: { phone: b, text: "x" },
      headers: { "idempotency-key": "k".repeat(256) },
    });
    const err = await expectError(res, 422, "validation_error");
    expect(err.error.details).toHaveProperty(["Idempotency-Key"]);
  });

  it("keys belong to their instance: the same key on another instance is a new send", async () => {
    const key = newKey();
    const one = await client(k)("text", { phone: b, text: "por instância" }, { "idempotency-key": key });
    const two = await client(k2)("text", { phone: b, text: "por instância" }, { "idempotency-key": key });
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(two.body.id).not.toBe(one.body.id);
    expect((await sentIds(k2.phone)).includes(networkId(two.body.id))).toBe(true);
  });

  it("a failed request does not keep its key: the same request succeeds later, once", async () => {
    const key = newKey();
    const late = "5531963330077"; // no account yet
    const body = { phone: late, text: "chegou?" };
    const failed = await send("text", body, { "idempotency-key": key });
    expect(failed.status, JSON.stringify(failed.body)).toBe(422);
    expect(failed.body.error.code).toBe("network_rejected");
    // Another body under the same key is not a conflict: nothing was kept.
    const other = newKey();
    expect((await send("text", { phone: late, text: "a" }, { "idempotency-key": other })).status).toBe(422);
    expect((await send("text", { phone: b, text: "b" }, { "idempotency-key": other })).status).toBe(201);

    expect((await c.sim("POST", "/simnet/phones", { phone: late })).status).toBeLessThan(300);
    const ok = await send("text", body, { "idempotency-key": key });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.chatId).toBe(`${late}@c.us`);
    const again = await send("text", body, { "idempotency-key": key });
    expect(again.body).toEqual(ok.body);
    expect((await sentIds(k.phone)).filter((id) => id === networkId(ok.body.id))).toHaveLength(1);
  });

  it("a request refused while the instance is not connected does not keep its key", async () => {
    const late: Inst = { id: "", token: "", phone: "5531963330003" };
    Object.assign(late, await c.createInstance({ billingStatus: "active" }));
    const key = newKey();
    const body = { phone: b, text: "depois de conectar" };
    const refused = await client(late)("text", body, { "idempotency-key": key });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("instance_not_connected");
    await startAndPair(late);
    const ok = await client(late)("text", body, { "idempotency-key": key });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect((await sentIds(late.phone)).filter((id) => id === networkId(ok.body.id))).toHaveLength(1);
  });

  it("a send that timed out (delivered, answer lost) is retried under its key without a second delivery", async () => {
    const key = newKey();
    const body = { phone: b, text: "resposta perdida" };
    await client(k)("text", { phone: b, text: "aquece o cache do número" }); // no number check on the slow path
    const before = await sentIds(k.phone);
    // simnet handles the send at once but answers after the pod's 10 s request timeout.
    expect((await c.sim("POST", "/simnet/faults/slow", { ms: 12_000 })).status).toBe(200);
    let timedOut: Answer;
    try {
      timedOut = await send("text", body, { "idempotency-key": key });
    } finally {
      await c.sim("POST", "/simnet/faults/slow", { ms: 0 });
    }
    expect(timedOut.status, JSON.stringify(timedOut.body)).toBe(504);
    expect(timedOut.body.error.code).toBe("network_timeout");
    const delivered = (await sentIds(k.phone)).filter((id) => !before.includes(id));
    expect(delivered).toHaveLength(1); // it did reach the contact

    const retry = await send("text", body, { "idempotency-key": key });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(networkId(retry.body.id)).toBe(delivered[0]);
    expect((await sentIds(k.phone)).filter((id) => !before.includes(id))).toEqual(delivered);
  }, 30_000);

  it("a client that gives up mid-send: the send goes on; the retry under its key answers it, one delivery", async () => {
    const key = newKey();
    const body = { phone: b, text: "cliente desistiu" };
    await client(k)("text", { phone: b, text: "aquece o cache do número" });
    const before = await sentIds(k.phone);
    // simnet takes the send at once and answers it 2 s later; the client hangs up after 300 ms.
    expect((await c.sim("POST", "/simnet/faults/slow", { ms: 2_000 })).status).toBe(200);
    try {
      const gaveUp = c.as(k.token)(`/v1/instances/${k.id}/messages/text`, {
        method: "POST",
        json: body,
        headers: { "idempotency-key": key },
        signal: AbortSignal.timeout(300),
      });
      await expect(gaveUp).rejects.toThrow();
      // While the first is still running, the retry waits for its answer instead of sending again.
      const retry = await send("text", body, { "idempotency-key": key });
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      const delivered = (await sentIds(k.phone)).filter((id) => !before.includes(id));
      expect(delivered).toEqual([networkId(retry.body.id)]);
    } finally {
      await c.sim("POST", "/simnet/faults/slow", { ms: 0 });
    }
  }, 30_000);

  it("a client `id` in the body is the network id even under a key", async () => {
    const key = newKey();
    const out = await send("text", { phone: b, text: "meu id", id: "idem-own-0001" }, { "idempotency-key": key });
    expect(out.status).toBe(201);
    expect(out.body.id).toBe(`true_${b}@c.us_idem-own-0001`);
  });

  it("PUT /messages/reaction under a key: the same answer, one reaction on the network", async () => {
    const target = await send("text", { phone: b, text: "reaja" });
    expect(target.status).toBe(201);
    const key = newKey();
    const react = async (body: unknown) => {
      const res = await c.as(k.token)(`/v1/instances/${k.id}/messages/reaction`, {
        method: "PUT",
        json: body,
        headers: { "idempotency-key": key },
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const first = await react({ messageId: target.body.id, reaction: "👍" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ chatId: `${b}@c.us`, status: "ok" });
    expect(await react({ messageId: target.body.id, reaction: "👍" })).toEqual(first);
    const ids = await sentIds(k.phone);
    expect(ids.filter((id) => id === networkId(first.body.id))).toHaveLength(1);
    // Another reaction under the same key is another request.
    const other = await react({ messageId: target.body.id, reaction: "❤️" });
    expect(other.status).toBe(422);
    expect(other.body.error.details).toHaveProperty("Idempotency-Key");
  });
});

describe("free trial (TRIAL_DAILY_MESSAGES=3)", () => {
  it("the first instance of an account is trialing; a second one of the same account is active", async () => {
    expect((await instanceDoc(t.id)).billingStatus).toBe("trialing");
    expect((await instanceDoc(sibling.id)).billingStatus).toBe("active");
    expect((await instanceDoc(k.id)).billingStatus).toBe("active");
  });

  it("sends 3 a day, then 429 trial_limit_reached with Retry-After; failures give their unit back", async () => {
    const send = client(t);
    const before = (await sentIds(t.phone)).length;
    expect((await send("text", { phone: b, text: "1" })).status).toBe(201);
    // Failed immediate sends — refused by the network, a file that cannot be decoded, an invalid
    // body — do not use up the allowance.
    for (let i = 0; i < TRIAL_LIMIT + 1; i++) {
      const rejected = await send("text", { phone: "5531963330066", text: "ninguém" });
      expect(rejected.status, JSON.stringify(rejected.body)).toBe(422);
      expect(rejected.body.error.code).toBe("network_rejected");
    }
    const badFile = await send("image", { phone: b, file: { data: "@@@@", mimetype: "image/png" } });
    expect(badFile.body.error?.code).toBe("validation_error");
    expect((await send("text", { phone: b })).status).toBe(422);
    expect((await send("text", { phone: b, text: "2" })).status).toBe(201);
    expect((await send("location", { phone: b, latitude: 0, longitude: 0, title: "3" })).status).toBe(201);

    const over = await c.as(t.token)(`/v1/instances/${t.id}/messages/text`, {
      method: "POST",
      json: { phone: b, text: "4" },
    });
    const err = await expectError(over, 429, "trial_limit_reached");
    expect(err.error.message).toMatch(/3/);
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Every route counts.
    await expectError(
      await c.as(t.token)(`/v1/instances/${t.id}/messages/poll`, {
        method: "POST",
        json: { phone: b, poll: { name: "?", options: ["a", "b"], multipleAnswers: false } },
      }),
      429,
      "trial_limit_reached",
    );
    expect(await sentIds(t.phone)).toHaveLength(before + TRIAL_LIMIT);
  });

  it("an idempotent replay does not use up the allowance", async () => {
    const send = client(t2);
    const key = newKey();
    const first = await send("text", { phone: b, text: "replay" }, { "idempotency-key": key });
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await send("text", { phone: b, text: "replay" }, { "idempotency-key": key })).body).toEqual(first.body);
    }
    expect((await send("text", { phone: b, text: "2" })).status).toBe(201);
    expect((await send("text", { phone: b, text: "3" })).status).toBe(201);
    const over = await send("text", { phone: b, text: "4" });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("trial_limit_reached");
    // A replay of an answer already given still answers after the limit.
    expect((await send("text", { phone: b, text: "replay" }, { "idempotency-key": key })).body).toEqual(first.body);
  });

  it("a reaction is a message of the day's allowance", async () => {
    const send = client(t3);
    const first = await send("text", { phone: b, text: "1" });
    expect(first.status).toBe(201);
    expect((await send("text", { phone: b, text: "2" })).status).toBe(201);
    const react = (reaction: string) =>
      c.as(t3.token)(`/v1/instances/${t3.id}/messages/reaction`, {
        method: "PUT",
        json: { messageId: first.body.id, reaction },
      });
    expect((await react("👍")).status).toBe(200);
    const over = await react("🎉");
    expect(over.status).toBe(429);
    expect(((await over.json()) as any).error.code).toBe("trial_limit_reached");
  });

  it("active instances are not limited (another account's, and the trial account's second instance)", async () => {
    for (const inst of [k2, sibling]) {
      for (let i = 0; i < TRIAL_LIMIT + 2; i++) {
        const out = await client(inst)("text", { phone: b, text: `livre ${i}` });
        expect(out.status, JSON.stringify(out.body)).toBe(201);
      }
    }
  });
});
