// What arrives from the network becomes the spec's message events (spec 2.11, 6.2) with privacy
// ids rewritten once the number is known (spec 1 rules 3–4), and media behind signed links.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../support/cluster.ts";

let c: Cluster;
const a = { id: "", token: "", phone: "5531966660001" };
const contact = "5531966660002";
const hidden = "5531966660003";

beforeAll(async () => {
  c = await startCluster({ simnet: { ackDelayMs: 20 } });
  Object.assign(a, await c.createInstance());
  await c.as(a.token)(`/v1/instances/${a.id}/start`, { method: "POST" });
  await c.pair(a.id, a.phone);
  await c.sim("POST", "/simnet/phones", { phone: contact, pushName: "Ana" });
  await c.sim("POST", "/simnet/phones", { phone: hidden, pushName: "Oculto", hidePhone: true });
}, 120_000);
afterAll(() => c?.close());

async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Payload = Record<string, any>;
const payloads = async (kind: string) => (await c.events(a.id, kind)).map((e) => e.payload as Payload);

it("a contact's text arrives as message and message.any with the spec's fields", async () => {
  const res = await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "text", text: "oi" },
  });
  const sent = (await res.json()) as { id: string };
  const p = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(sent.id)));
  expect(p).toMatchObject({
    id: `false_${contact}@c.us_${sent.id}`,
    chatId: `${contact}@c.us`,
    isGroup: false,
    chatName: "Ana",
    fromMe: false,
    from: { id: `${contact}@c.us`, phone: contact, pushName: "Ana" },
    type: "text",
    text: "oi",
  });
  expect(p.from.lid).toMatch(/@lid$/);
  expect(p.chatLid).toMatch(/@lid$/);
  expect(p.timestamp).toBeLessThan(10_000_000_000);
  const any = await eventually(async () => (await payloads("message.any")).find((x) => x.id === p.id));
  expect(any.text).toBe("oi");
});

it("received media: a signed link that downloads the exact bytes, 404 when tampered or expired", async () => {
  const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 8, 7, 6]);
  const res = await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "image", media: { data: bytes.toString("base64"), mimetype: "image/jpeg" }, caption: "foto" },
  });
  const sent = (await res.json()) as { id: string };
  const p = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(sent.id)));
  expect(p).toMatchObject({ type: "image", text: "foto", media: { mimetype: "image/jpeg" } });
  const url = new URL(p.media.url);
  expect(url.pathname).toBe(`/v1/files/${a.id}/${p.id}.jpg`);
  const got = await fetch(`${c.url}${url.pathname}${url.search}`);
  expect(got.status).toBe(200);
  expect(got.headers.get("content-type")).toBe("image/jpeg");
  expect(Buffer.from(await got.arrayBuffer())).toEqual(bytes);
  const tampered = `${c.url}${url.pathname}?exp=${url.searchParams.get("exp")}&sig=${url.searchParams.get("sig")}x`;
  expect((await fetch(tampered)).status).toBe(404);
  const expired = `${c.url}${url.pathname}?exp=1000&sig=${url.searchParams.get("sig")}`;
  expect((await fetch(expired)).status).toBe(404);
});

it("a contact that hides its number appears by lid, and by number once revealed", async () => {
  const first = (await (
    await c.sim("POST", `/simnet/phones/${hidden}/send`, { to: a.phone, message: { type: "text", text: "quem sou?" } })
  ).json()) as { id: string };
  const p1 = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(first.id)));
  expect(p1.chatId).toMatch(/@lid$/);
  expect(p1.from.phone).toBe("");
  await c.sim("POST", `/simnet/phones/${hidden}/reveal`);
  const second = (await (
    await c.sim("POST", `/simnet/phones/${hidden}/send`, { to: a.phone, message: { type: "text", text: "sou eu" } })
  ).json()) as { id: string };
  const p2 = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(second.id)));
  expect(p2.chatId).toBe(`${hidden}@c.us`);
  expect(p2.chatLid).toBe(p1.chatId);
  expect(p2.from).toMatchObject({ id: `${hidden}@c.us`, phone: hidden, lid: p1.chatId });
});

it("reactions to our messages arrive as message.reaction naming our message id", async () => {
  const res = await c.as(a.token)(`/v1/instances/${a.id}/messages/text`, {
    method: "POST",
    json: { phone: contact, text: "reaja" },
  });
  const mine = (await res.json()) as { id: string };
  const netId = mine.id.split("_")[2];
  await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "reaction", targetId: netId, emoji: "👍" },
  });
  const r = await eventually(async () => (await payloads("message.reaction")).find((x) => x.messageId === mine.id));
  expect(r).toMatchObject({ type: "reaction", emoji: "👍", fromMe: false, chatId: `${contact}@c.us` });
});

it("the contact edits and deletes its message: message.edited and message.revoked, of type edit and revoke", async () => {
  const send = (message: unknown) => c.sim("POST", `/simnet/phones/${contact}/send`, { to: a.phone, message });
  const sent = (await (await send({ type: "text", text: "erarda" })).json()) as { id: string };
  const apiId = `false_${contact}@c.us_${sent.id}`;
  await eventually(async () => (await payloads("message")).find((x) => x.id === apiId));
  await send({ type: "edit", targetId: sent.id, text: "errada, corrigida" });
  const edited = await eventually(async () => (await payloads("message.edited")).find((x) => x.messageId === apiId));
  expect(edited).toMatchObject({ type: "edit", text: "errada, corrigida", chatName: "Ana", fromMe: false });
  await send({ type: "revoke", targetId: sent.id });
  const revoked = await eventually(async () => (await payloads("message.revoked")).find((x) => x.messageId === apiId));
  expect(revoked).toMatchObject({ type: "revoke", chatId: `${contact}@c.us`, fromMe: false });
});

it("pictures: chatPicture and from.picture are signed links; 404 while none is visible", async () => {
  const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
  const picRes = await c.sim("PUT", `/simnet/phones/${contact}/picture`, {
    picture: { data: png.toString("base64"), mimetype: "image/png" },
  });
  expect(picRes.status).toBe(200);
  const sent = (await (
    await c.sim("POST", `/simnet/phones/${contact}/send`, { to: a.phone, message: { type: "text", text: "com foto" } })
  ).json()) as { id: string };
  const p = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(sent.id)));
  const chatPic = new URL(p.chatPicture);
  expect(chatPic.pathname).toBe(`/v1/avatars/${a.id}/${contact}@c.us.jpg`);
  const got = await fetch(`${c.url}${chatPic.pathname}${chatPic.search}`);
  expect(got.status).toBe(200);
  expect(got.headers.get("content-type")).toBe("image/png");
  expect(Buffer.from(await got.arrayBuffer())).toEqual(png);
  expect(new URL(p.from.picture).pathname).toBe(chatPic.pathname);
  // No picture: the link exists and answers 404.
  const none = (await (
    await c.sim("POST", `/simnet/phones/${hidden}/send`, { to: a.phone, message: { type: "text", text: "sem foto" } })
  ).json()) as { id: string };
  const q = await eventually(async () => (await payloads("message")).find((x) => x.id?.endsWith(none.id)));
  const noPic = new URL(q.chatPicture);
  expect((await fetch(`${c.url}${noPic.pathname}${noPic.search}`)).status).toBe(404);
  // Tampered: 404 even for a contact with a picture.
  expect((await fetch(`${c.url}${chatPic.pathname}?exp=${chatPic.searchParams.get("exp")}&sig=AAAA`)).status).toBe(404);
});

it("votes and event replies: poll.vote (selectedOptions) and event.response name our message", async () => {
  const send = (route: string, json: unknown) =>
    c.as(a.token)(`/v1/instances/${a.id}/messages/${route}`, { method: "POST", json });
  const poll = (await (
    await send("poll", { phone: contact, poll: { name: "Pizza?", options: ["sim", "não"], multipleAnswers: false } })
  ).json()) as { id: string };
  await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "poll_vote", pollId: poll.id.split("_")[2], votes: ["sim"] },
  });
  const vote = await eventually(async () => (await payloads("poll.vote")).find((x) => x.pollId === poll.id));
  expect(vote).toMatchObject({ type: "poll_vote", selectedOptions: ["sim"], chatId: `${contact}@c.us`, fromMe: false });

  const event = (await (
    await send("event", { phone: contact, event: { name: "Reunião", startTime: 1_900_000_000 } })
  ).json()) as { id: string };
  await c.sim("POST", `/simnet/phones/${contact}/send`, {
    to: a.phone,
    message: { type: "event_response", targetId: event.id.split("_")[2], response: "going" },
  });
  const reply = await eventually(async () => (await payloads("event.response")).find((x) => x.eventId === event.id));
  expect(reply).toMatchObject({ type: "event_response", response: "going", from: { id: `${contact}@c.us` } });
});
