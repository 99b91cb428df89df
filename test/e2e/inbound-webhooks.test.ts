// What a contact writes, every kind, reaches a real webhook receiver as the exact spec 2.11
// payloads (signed), and the chat routes return the same messages under the same ids.
import { verify } from "@gw/webhook-verify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

let c: Cluster;
let rx: Receiver;
const a = { id: "", token: "", phone: "5531944440001" };
const contact = "5531944440002";
let secret = "";

beforeAll(async () => {
  c = await startCluster({
    simnet: { ackDelayMs: 20 },
    worker: { retryScheduleMs: [200] },
    env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" },
  });
  rx = await startReceiver();
  Object.assign(a, await c.createInstance());
  const api = c.as(a.token);
  await api(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  const hook = await api(`/v1/instances/${a.id}/webhooks`, {
    method: "POST",
    json: { url: rx.url, events: ["message", "message.reaction", "poll.vote"] },
  });
  secret = ((await hook.json()) as { secret: string }).secret;
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Ana" });
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await c?.close();
});

const media = (mimetype: string, bytes = [1, 2, 3, 4]) => ({ data: Buffer.from(bytes).toString("base64"), mimetype });

const KINDS: [string, Record<string, unknown>][] = [
  ["text", { type: "text", text: "olá" }],
  ["image", { type: "image", media: media("image/jpeg", [0xff, 0xd8, 0xff]), caption: "foto" }],
  ["video", { type: "video", media: media("video/mp4"), caption: "vídeo" }],
  ["audio", { type: "audio", media: media("audio/mpeg") }],
  ["voice", { type: "voice", media: media("audio/ogg; codecs=opus"), seconds: 2 }],
  ["document", { type: "document", media: { ...media("application/pdf"), filename: "a.pdf" }, caption: "doc" }],
  ["sticker", { type: "sticker", media: media("image/webp") }],
  ["location", { type: "location", latitude: -19.9, longitude: -43.9, name: "BH" }],
  ["contact", { type: "contacts", contacts: [{ fullName: "Bia", phoneNumber: "+55 31 99999-0000" }] }],
  ["poll", { type: "poll", name: "Pizza?", options: ["sim", "não"], multipleAnswers: false }],
  ["unknown", { type: "event", name: "Reunião", startTime: 1_900_000_000 }],
];

it("every kind a contact writes arrives signed at the webhook, equal to the event, and reads back by id", async () => {
  const ids: string[] = [];
  for (const [, message] of KINDS) {
    const res = await c.sim("POST", `/simnet/phones/${contact}/send`, { to: a.phone, message });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  const got = await rx.waitFor(
    (all) => ids.every((id) => all.some((r) => String(r.envelope.payload.id).endsWith(`_${id}`))),
    20_000,
  );
  const stream = await c.events(a.id, "message");
  for (const [i, [type]] of KINDS.entries()) {
    const r = got.find((x) => String(x.envelope.payload.id).endsWith(`_${ids[i]}`))!;
    // Signed as spec 6.3 says, on the raw body.
    const signature = String(r.headers["x-service-signature"]);
    expect(verify({ secret, header: signature, rawBody: r.rawBody })).toMatchObject({ ok: true });
    expect(r.envelope).toMatchObject({ event: "message", instanceId: a.id, provider: "sim" });
    expect(r.envelope.payload).toMatchObject({
      id: `false_${contact}@c.us_${ids[i]}`,
      chatId: `${contact}@c.us`,
      isGroup: false,
      chatName: "Ana",
      fromMe: false,
      from: { id: `${contact}@c.us`, phone: contact, pushName: "Ana" },
      type,
    });
    // Exactly the event the instance published (same envelope id, same payload).
    const ev = stream.find((e) => e.id === r.envelope.id);
    expect(ev?.payload).toEqual(r.envelope.payload);
  }
  const read = (await (
    await c.as(a.token)(`/v1/instances/${a.id}/chats/${contact}@c.us/messages?limit=100`)
  ).json()) as { id: string }[];
  for (const id of ids) expect(read.map((m) => m.id)).toContain(`false_${contact}@c.us_${id}`);
}, 60_000);
