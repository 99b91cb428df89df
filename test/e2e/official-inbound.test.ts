// The operator's webhooks end to end: the handshake, signatures, routing by number, durable
// processing, duplicates and disorder, and every field mapped to the spec's events — posted by
// the local operator mock to the gateway's /v1/official/webhook.
import { signature } from "@gw/cloudmock";
import { createLogger } from "@gw/platform";
import { startWorkerRole } from "@gw/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson } from "../support/e2e-helpers.ts";
import {
  type OfficialNumber,
  type OfficialRig,
  startOfficial,
  VERIFY_TOKEN,
  waitForEvent,
} from "../support/official.ts";

let r: OfficialRig;
let n: OfficialNumber;
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  r = await startOfficial();
  n = await r.number();
});
afterAll(() => r?.close());

const hook = `/v1/official/webhook`;

/** A body posted to the gateway as the operator would, signed with `secret` (or with the header given). */
const post = (body: string, secret: string | null, header?: string) =>
  r.c.request(hook, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      ...(header !== undefined
        ? { "x-hub-signature-256": header }
        : secret !== null
          ? { "x-hub-signature-256": signature(secret, body) }
          : {}),
    },
  });

/** A `messages` change of a number with one text from `from`. */
const textChange = (phoneNumberId: string, from: string, id: string, text: string) => ({
  field: "messages",
  value: {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: "5511000000000", phone_number_id: phoneNumberId },
    contacts: [{ profile: { name: "Cliente" }, wa_id: from }],
    messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: "text", text: { body: text } }],
  },
});
const envelope = (...entries: { waba: string; changes: unknown[] }[]) =>
  JSON.stringify({
    object: "whatsapp_business_account",
    entry: entries.map((e) => ({ id: e.waba, changes: e.changes })),
  });

/** The gateway's count of operator webhook changes by outcome (its internal /metrics). */
async function changeCount(outcome: string): Promise<number> {
  const res = await r.c.gateway.internal.inject({ method: "GET", url: "/metrics" });
  const m = new RegExp(`gateway_official_webhook_changes_total\\{outcome="${outcome}"\\} (\\d+)`).exec(res.body);
  return m ? Number(m[1]) : 0;
}

describe("the endpoint", () => {
  it("answers the verification handshake with the challenge, and refuses a wrong token", async () => {
    const ok = await r.c.request(
      `${hook}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const bad = await r.c.request(`${hook}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`);
    expect(bad.status).toBe(403);
  });

  it("refuses a body whose signature does not verify with the number's app secret (401, nothing kept)", async () => {
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: n.wabaId,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
                contacts: [{ profile: { name: "Forjado" }, wa_id: "5511900000001" }],
                messages: [
                  {
                    from: "5511900000001",
                    id: "wamid.forged1",
                    timestamp: "1760000000",
                    type: "text",
                    text: { body: "forjado" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    for (const signature of [undefined, "sha256=00", `sha256=${"ab".repeat(32)}`]) {
      const res = await r.c.request(hook, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...(signature ? { "x-hub-signature-256": signature } : {}) },
      });
      expect(res.status).toBe(401);
    }
    expect(await r.c.platform.cloudInbox.backlog()).toBe(0);
    expect((await r.c.events(n.id, "message")).filter((e) => e.payload.text === "forjado")).toEqual([]);
  });

  it("acknowledges a number it does not know and drops it", async () => {
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "999",
          changes: [{ field: "messages", value: { metadata: { phone_number_id: "424242" }, messages: [] } }],
        },
      ],
    });
    const before = await changeCount("unknown_number");
    // Signed by an app whose secret no instance has: acknowledged (the operator stops retrying).
    const res = await post(body, "some-other-apps-secret");
    expect(res.status).toBe(200);
    expect(await changeCount("unknown_number")).toBe(before + 1);
  });

  it("refuses with 401, before reading it, a body without a well-formed signature or that is not JSON", async () => {
    const notJson = "entry=1&object=whatsapp";
    for (const [body, header] of [
      [notJson, undefined],
      [notJson, "sha256=00"],
      [notJson, signature(n.appSecret, notJson)], // well signed, but it names no number to verify it for
      ['{"object":"whatsapp_business_account","entry":[]}', undefined],
      ['{"object":"whatsapp_business_account","entry":[]}', "sha1=abc"],
    ] as const) {
      const res = await r.c.request(hook, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...(header ? { "x-hub-signature-256": header } : {}) },
      });
      expect(res.status, `${body} ${header}`).toBe(401);
    }
  });

  it("a webhook right after its instance is created is kept (no stale 'unknown number')", async () => {
    const secret = "segredo-do-app-novo-1";
    const pnid = `77${Date.now()}`;
    const waba = `88${Date.now()}`;
    const before = await changeCount("unknown_number");
    // The number is not an instance yet: acknowledged and dropped.
    expect(
      (await post(envelope({ waba, changes: [textChange(pnid, "5511933330001", "wamid.early", "cedo")] }), secret))
        .status,
    ).toBe(200);
    expect(await changeCount("unknown_number")).toBe(before + 1);
    const created = await r.c.admin("POST", "/v1/admin/instances", {
      name: "nova",
      kind: "official",
      cloud: { phoneNumberId: pnid, wabaId: waba, accessToken: "EAAGnova-123456", appSecret: secret },
    });
    const { instance } = (await created.json()) as { instance: { id: string } };
    expect(created.status).toBe(201);
    // At once: the earlier answer for this number is not reused.
    const body = envelope({ waba, changes: [textChange(pnid, "5511933330001", "wamid.logo", "logo depois")] });
    expect((await post(body, secret)).status).toBe(200);
    await waitForEvent(r.c, instance.id, "message", (p) => p.text === "logo depois", 10_000);
  });

  it("a webhook with known and unknown numbers keeps the known ones and counts the others", async () => {
    const before = { unknown: await changeCount("unknown_number"), accepted: await changeCount("accepted") };
    const body = envelope(
      { waba: n.wabaId, changes: [textChange(n.phoneNumberId, "5511933330002", "wamid.mixed1", "misturado")] },
      { waba: "31337", changes: [textChange("31337000", "5511933330003", "wamid.mixed2", "de ninguém")] },
    );
    expect((await post(body, n.appSecret)).status).toBe(200);
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "misturado");
    expect(await changeCount("unknown_number")).toBe(before.unknown + 1);
    expect(await changeCount("accepted")).toBe(before.accepted + 1);
  });

  it("a rotated app secret reaches the verifier at once: the old one is refused, the new one accepted", async () => {
    const m = await r.number();
    const rotated = "segredo-novo-do-app-2";
    const patched = await r.c.admin("PATCH", `/v1/admin/instances/${m.id}`, { cloud: { appSecret: rotated } });
    expect(patched.status).toBe(200);
    const old = envelope({
      waba: m.wabaId,
      changes: [textChange(m.phoneNumberId, "5511933330004", "wamid.rot1", "antigo")],
    });
    expect((await post(old, m.appSecret)).status).toBe(401);
    // The operator signs with the new secret from now on.
    await r.ctl("PATCH", `/mock/numbers/${m.phoneNumberId}`, { appSecret: rotated });
    await r.inbound(m, "5511933330004", { type: "text", text: { body: "com o segredo novo" } });
    await waitForEvent(r.c, m.id, "message", (p) => p.text === "com o segredo novo");
    expect((await r.c.events(m.id, "message")).filter((e) => e.payload.text === "antigo")).toEqual([]);
  });

  it("with no processor running: an unknown number stores nothing; an entry whose processor died is reclaimed", async () => {
    const worker = r.c.worker!;
    await worker.close();
    const again = { worker: null as Awaited<ReturnType<typeof startWorkerRole>> | null };
    const conn = r.c.platform.duplicate("test-crashed-processor");
    try {
      expect(await r.c.platform.cloudInbox.backlog()).toBe(0);
      const unknown = envelope({
        waba: "4040",
        changes: [textChange("40404040", "5511933330005", "wamid.nobody", "x")],
      });
      expect((await post(unknown, "whatever-secret")).status).toBe(200);
      expect(await r.c.platform.cloudInbox.backlog()).toBe(0); // acknowledged, nothing stored
      await r.inbound(n, "5511933330006", { type: "text", text: { body: "processado depois da queda" } });
      await expect.poll(() => r.c.platform.cloudInbox.backlog(), { timeout: 10_000 }).toBe(1);
      // A processor takes the entry and dies before finishing it: the entry stays pending, its own.
      const taken = await r.c.platform.cloudInbox.read(conn, "crashed-processor", 10, 1_000);
      expect(taken).toHaveLength(1);
      // The next processor reads only new entries: this one reaches it through the reclaim
      // (XAUTOCLAIM) of entries left idle longer than DISPATCH_CLAIM_IDLE_MS.
      again.worker = await startWorkerRole(r.c.platform.config, r.c.platform, createLogger("silent"), {
        retryScheduleMs: [500],
      });
      const [m] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "processado depois da queda");
      expect(m).toBeDefined();
      await expect.poll(() => r.c.platform.cloudInbox.backlog(), { timeout: 10_000 }).toBe(0);
      expect(
        (await r.c.events(n.id, "message")).filter((e) => e.payload.text === "processado depois da queda"),
      ).toHaveLength(1);
    } finally {
      conn.disconnect();
      if (again.worker) r.c.worker = again.worker;
    }
  });

  it("keeps what it acknowledged while no processor runs, and processes it when one starts", async () => {
    const worker = r.c.worker!;
    await worker.close();
    await r.inbound(n, "5511955550000", { type: "text", text: { body: "enquanto o worker dormia" } });
    await expect.poll(() => r.c.platform.cloudInbox.backlog(), { timeout: 10_000 }).toBeGreaterThan(0);
    const config = r.c.platform.config;
    const again = await startWorkerRole(config, r.c.platform, createLogger("silent"), { retryScheduleMs: [500] });
    try {
      await waitForEvent(r.c, n.id, "message", (p) => p.text === "enquanto o worker dormia");
      await expect.poll(() => r.c.platform.cloudInbox.backlog(), { timeout: 10_000 }).toBe(0);
    } finally {
      r.c.worker = again;
    }
  });
});

describe("received messages", () => {
  it("text: message and message.any with the spec's fields; the chat lands in the read model", async () => {
    const from = "5511966660001";
    const { id } = await r.inbound(n, from, {
      type: "text",
      text: { body: "Olá, loja!" },
      referral: {
        source_url: "https://fb.me/x",
        source_id: "120226",
        source_type: "ad",
        headline: "Promo",
        body: "Até 50%",
        media_type: "image",
        ctwa_clid: "Aff-n8Z",
      },
    });
    const [message] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "Olá, loja!");
    expect(message!.payload).toMatchObject({
      chatId: `${from}@c.us`,
      fromMe: false,
      type: "text",
      isGroup: false,
      chatPicture: null,
      from: { id: `${from}@c.us`, phone: from, pushName: `Cliente ${from.slice(-4)}`, picture: null },
      referral: {
        sourceType: "ad",
        sourceId: "120226",
        sourceUrl: "https://fb.me/x",
        headline: "Promo",
        body: "Até 50%",
        mediaType: "image",
        clickId: "Aff-n8Z",
      },
    });
    expect(String(message!.payload.id)).toBe(`false_${from}@c.us_${id.replace(/\+/g, "-").replace(/\//g, "~")}`);
    await waitForEvent(r.c, n.id, "message.any", (p) => p.text === "Olá, loja!");
    const chats = await expectJson<{ id: string }[]>(await r.c.as(n.token)(`/v1/instances/${n.id}/chats`));
    expect(chats.map((c) => c.id)).toContain(`${from}@c.us`);
    const messages = await expectJson<{ body: string }[]>(
      await r.c.as(n.token)(`/v1/instances/${n.id}/chats/${from}@c.us/messages?limit=10`),
    );
    expect(messages.map((m) => m.body)).toContain("Olá, loja!");
  });

  it("media arrive as signed links, downloaded from the operator with the instance's token when opened", async () => {
    const from = "5511966660002";
    await r.inbound(n, from, {
      type: "image",
      image: { caption: "foto do produto" },
      media: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    const [m] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "foto do produto");
    expect(m!.payload.type).toBe("image");
    const link = new URL((m!.payload.media as { url: string }).url);
    expect(link.pathname + link.search).toMatch(/^\/v1\/files\/.+\?exp=\d+&sig=/);
    const file = await r.c.request(link.pathname + link.search); // the link's own host is PUBLIC_BASE_URL
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("voice notes, documents, locations, contacts, reply buttons, list rows and template buttons", async () => {
    const from = "5511966660003";
    await r.inbound(n, from, {
      type: "audio",
      audio: { voice: true },
      media: { data: "T2dnUw==", mimetype: "audio/ogg; codecs=opus" },
    });
    await r.inbound(n, from, { type: "location", location: { latitude: -23.5, longitude: -46.6, name: "Casa" } });
    await r.inbound(n, from, {
      type: "contacts",
      contacts: [{ name: { formatted_name: "Bia" }, phones: [{ phone: "+551100" }] }],
    });
    await r.inbound(n, from, {
      type: "interactive",
      interactive: { type: "button_reply", button_reply: { id: "yes", title: "Sim" } },
    });
    await r.inbound(n, from, {
      type: "interactive",
      interactive: { type: "list_reply", list_reply: { id: "p1", title: "Pizza", description: "Grande" } },
    });
    await r.inbound(n, from, { type: "button", button: { payload: "STOP", text: "Parar" } });
    const all = await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${from}@c.us` && p.text === "Parar");
    expect(all).toHaveLength(1);
    const mine = (await r.c.events(n.id, "message"))
      .filter((e) => e.payload.chatId === `${from}@c.us`)
      .map((e) => e.payload);
    expect(mine.map((p) => p.type)).toEqual([
      "voice",
      "location",
      "contact",
      "button_reply",
      "list_reply",
      "button_reply",
    ]);
    expect(mine[3]!.interactive).toEqual({ type: "button_reply", id: "yes", title: "Sim" });
    expect(mine[4]!.interactive).toEqual({ type: "list_reply", id: "p1", title: "Pizza", description: "Grande" });
    expect(mine[5]!.interactive).toEqual({ type: "template_button", id: "STOP", title: "Parar" });
  });

  it("reactions, edits and revocations (coexistence) name the message they are about", async () => {
    const from = "5511966660004";
    const { id: original } = await r.inbound(n, from, { type: "text", text: { body: "pedido 1" } });
    const [first] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "pedido 1");
    const apiId = String(first!.payload.id);
    await r.inbound(n, from, { type: "reaction", reaction: { message_id: original, emoji: "❤️" } });
    await r.inbound(n, from, {
      type: "edit",
      edit: { original_message_id: original, message: { type: "text", text: { body: "pedido 2" } } },
    });
    await r.inbound(n, from, { type: "revoke", revoke: { original_message_id: original } });
    const [reaction] = await waitForEvent(r.c, n.id, "message.reaction", (p) => p.messageId === apiId);
    expect(reaction!.payload.emoji).toBe("❤️");
    const [edited] = await waitForEvent(r.c, n.id, "message.edited", (p) => p.messageId === apiId);
    expect(edited!.payload.text).toBe("pedido 2");
    await waitForEvent(r.c, n.id, "message.revoked", (p) => p.messageId === apiId);
  });

  it("a user with a username and no visible number is a @bsuid chat", async () => {
    const from = "5511966660005";
    await r.ctl("PUT", `/mock/numbers/${n.phoneNumberId}/users/${from}`, {
      userId: "US.13491208655302741918",
      username: "@sheena",
      hidePhone: true,
    });
    await r.inbound(n, from, { type: "text", text: { body: "sou a sheena" } });
    const [m] = await waitForEvent(r.c, n.id, "message", (p) => p.text === "sou a sheena");
    expect(m!.payload).toMatchObject({
      chatId: "US.13491208655302741918@bsuid",
      from: { id: "US.13491208655302741918@bsuid", phone: "" },
    });
    // The window is the bsuid chat's: a reply goes to the user id.
    const out = await r.c.as(n.token)(`/v1/instances/${n.id}/messages/text`, {
      method: "POST",
      json: { chatId: "US.13491208655302741918@bsuid", text: "Oi, Sheena" },
    });
    expect(await expectJson(out, 201)).toMatchObject({ chatId: "US.13491208655302741918@bsuid" });
  });

  it("echoes of the business app (coexistence) are message.any from the account, source app", async () => {
    await r.ctl("POST", "/mock/webhooks", {
      phoneNumberId: n.phoneNumberId,
      field: "smb_message_echoes",
      value: {
        messaging_product: "whatsapp",
        metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
        message_echoes: [
          {
            from: n.phone,
            to: "5511966660006",
            id: "wamid.echo1",
            timestamp: "1760000000",
            type: "text",
            text: { body: "respondi pelo app" },
          },
        ],
      },
    });
    const [echo] = await waitForEvent(r.c, n.id, "message.any", (p) => p.text === "respondi pelo app");
    expect(echo!.payload).toMatchObject({ fromMe: true, source: "app", chatId: "5511966660006@c.us" });
  });
});

describe("what the operator could not hand over, identities, errors and history media", () => {
  const change = (field: string, value: unknown) =>
    r.ctl("POST", "/mock/webhooks", { phoneNumberId: n.phoneNumberId, field, value });
  const meta = () => ({ display_phone_number: n.phone, phone_number_id: n.phoneNumberId });

  it("an unsupported message is type unknown with the operator's error", async () => {
    const from = "5511966661001";
    await r.inbound(n, from, {
      type: "unsupported",
      unsupported: { type: "poll" },
      errors: [
        {
          code: 131051,
          title: "Message type unknown",
          message: "Message type unknown",
          error_data: { details: "Message type is currently not supported." },
        },
      ],
    });
    const [m] = await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${from}@c.us`);
    expect(m!.payload).toMatchObject({
      type: "unknown",
      error: { code: 131051, message: "Message type unknown", details: "Message type is currently not supported." },
    });
  });

  it("errors of a whole change (value.errors) are account.alert, the operator's error kept", async () => {
    await change("messages", {
      messaging_product: "whatsapp",
      metadata: meta(),
      messages: [{ type: "interactive" }],
      errors: [
        {
          code: 131000,
          title: "Something went wrong",
          message: "Something went wrong",
          error_data: { details: "Unsupported webhook payload" },
        },
      ],
    });
    const [alert] = await waitForEvent(r.c, n.id, "account.alert", (p) => p.alertType === "OPERATOR_ERROR");
    expect(alert!.payload).toMatchObject({
      entityType: "PHONE_NUMBER",
      entityId: n.phoneNumberId,
      alertSeverity: "WARNING",
      alertDescription: "Something went wrong: Unsupported webhook payload",
      error: { code: 131000, title: "Something went wrong", details: "Unsupported webhook payload" },
      field: "messages",
    });
  });

  it("a customer's new number is a contact.sync beside the system message; user_id_update is passed on as given", async () => {
    const old = "5511966661002";
    await change("messages", {
      messaging_product: "whatsapp",
      metadata: meta(),
      messages: [
        {
          from: old,
          id: "wamid.sys1",
          timestamp: "1760000000",
          type: "system",
          system: {
            body: `User A changed from ${old} to 5511966661003`,
            wa_id: "5511966661003",
            type: "user_changed_number",
          },
        },
      ],
    });
    const [sync] = await waitForEvent(r.c, n.id, "contact.sync", (p) => p.source === "system");
    expect(sync!.payload.contacts).toEqual([
      {
        action: "user_changed_number",
        chatId: `${old}@c.us`,
        phone: old,
        newChatId: "5511966661003@c.us",
        newPhone: "5511966661003",
        text: `User A changed from ${old} to 5511966661003`,
        timestamp: 1760000000,
      },
    ]);
    await waitForEvent(r.c, n.id, "message", (p) => p.chatId === `${old}@c.us` && p.type === "unknown");
    const update = { messaging_product: "whatsapp", metadata: meta(), anything: [{ the: "operator's value" }] };
    await change("user_id_update", update);
    const [passed] = await waitForEvent(r.c, n.id, "contact.sync", (p) => p.source === "user_id_update");
    expect(passed!.payload).toMatchObject({ contacts: [], raw: update });
  });

  it("history media arrive after their placeholders and replace them in the read model", async () => {
    const from = "5511966661004";
    const at = String(Math.floor(Date.now() / 1000) - 3600); // recent: its media are still kept
    // Media of the history only exist on the operator: one is stored there by a message first.
    const { payload } = await r.inbound(n, "5511966661005", {
      type: "image",
      image: {},
      media: { data: PNG.toString("base64"), mimetype: "image/png" },
    });
    const mediaId = (payload as { entry: { changes: { value: { messages: { image: { id: string } }[] } }[] }[] })
      .entry[0]!.changes[0]!.value.messages[0]!.image.id;
    await change("history", {
      messaging_product: "whatsapp",
      metadata: meta(),
      history: [
        {
          metadata: { phase: 0, chunk_order: 1, progress: 100 },
          threads: [
            {
              id: from,
              messages: [
                {
                  from,
                  id: "wamid.histmedia1",
                  timestamp: at,
                  type: "media_placeholder",
                  history_context: { status: "READ" },
                },
              ],
            },
          ],
        },
      ],
    });
    await waitForEvent(
      r.c,
      n.id,
      "history.sync",
      (p) => (p.threads as { chatId: string }[])[0]?.chatId === `${from}@c.us`,
    );
    const list = async () =>
      expectJson<{ type: string; hasMedia: boolean; mediaUrl?: string }[]>(
        await r.c.as(n.token)(`/v1/instances/${n.id}/chats/${from}@c.us/messages?limit=10&downloadMedia=true`),
      );
    expect((await list()).map((m) => m.type)).toEqual(["unknown"]);
    const syncs = (await r.c.events(n.id, "history.sync")).length;
    await change("history", {
      messaging_product: "whatsapp",
      metadata: meta(),
      messages: [
        {
          from,
          id: "wamid.histmedia1",
          timestamp: at,
          type: "image",
          image: { id: mediaId, mime_type: "image/png" },
        },
      ],
    });
    await expect.poll(async () => (await list()).map((m) => m.type), { timeout: 10_000 }).toEqual(["image"]);
    const [stored] = await list();
    expect(stored!.hasMedia).toBe(true);
    const link = new URL(stored!.mediaUrl!);
    const file = await r.c.request(link.pathname + link.search);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    // Neither a message event (the past) nor another history.sync.
    expect((await r.c.events(n.id, "history.sync")).length).toBe(syncs);
    expect((await r.c.events(n.id, "message")).filter((e) => e.payload.chatId === `${from}@c.us`)).toEqual([]);
  });

  it("echoes of edits and deletions made in the business app (coexistence) name the message", async () => {
    const to = "5511966661006";
    const echo = (id: string, type: string, body: Record<string, unknown>) =>
      change("smb_message_echoes", {
        messaging_product: "whatsapp",
        metadata: meta(),
        message_echoes: [{ from: n.phone, to, id, timestamp: String(Math.floor(Date.now() / 1000)), type, ...body }],
      });
    await echo("wamid.echoOrig", "text", { text: { body: "pelo app" } });
    const [orig] = await waitForEvent(r.c, n.id, "message.any", (p) => p.text === "pelo app");
    const apiId = String(orig!.payload.id);
    expect(apiId.startsWith("true_")).toBe(true);
    await echo("wamid.echoEdit", "edit", {
      edit: { original_message_id: "wamid.echoOrig", message: { type: "text", text: { body: "pelo app, corrigido" } } },
    });
    const [edited] = await waitForEvent(r.c, n.id, "message.edited", (p) => p.messageId === apiId);
    expect(edited!.payload).toMatchObject({ fromMe: true, source: "app", text: "pelo app, corrigido" });
    await echo("wamid.echoRevoke", "revoke", { revoke: { original_message_id: "wamid.echoOrig" } });
    const [revoked] = await waitForEvent(r.c, n.id, "message.revoked", (p) => p.messageId === apiId);
    expect(revoked!.payload).toMatchObject({ fromMe: true, source: "app" });
  });

  it("echoes name the chat as the instance knows it (the business app's contact book first) and the message they answer", async () => {
    // A number of its own: its contact book sync is no other test's.
    const own = await r.number();
    const to = "5511966661008";
    const at = () => String(Math.floor(Date.now() / 1000));
    const changeOf = (field: string, value: unknown) =>
      r.ctl("POST", "/mock/webhooks", { phoneNumberId: own.phoneNumberId, field, value });
    const metaOf = () => ({ display_phone_number: own.phone, phone_number_id: own.phoneNumberId });
    const echo = (id: string, body: Record<string, unknown>) =>
      changeOf("smb_message_echoes", {
        messaging_product: "whatsapp",
        metadata: metaOf(),
        message_echoes: [{ from: own.phone, to, id, timestamp: at(), type: "text", ...body }],
      });
    // Never met: no name to give.
    await echo("wamid.echoFirst", { text: { body: "primeiro contato pelo app" } });
    const [first] = await waitForEvent(r.c, own.id, "message.any", (p) => p.text === "primeiro contato pelo app");
    expect(first!.payload).toMatchObject({ chatName: null, quotedId: null });
    // The customer writes (its profile name); the business answers it from the app, quoting it.
    await r.ctl("PUT", `/mock/numbers/${own.phoneNumberId}/users/${to}`, { name: "Carla" });
    const { id: asked } = await r.inbound(own, to, { type: "text", text: { body: "tem em azul?" } });
    const [question] = await waitForEvent(r.c, own.id, "message", (p) => p.text === "tem em azul?");
    await echo("wamid.echoReply", { text: { body: "tem sim" }, context: { from: to, id: asked } });
    const [reply] = await waitForEvent(r.c, own.id, "message.any", (p) => p.text === "tem sim");
    expect(reply!.payload).toMatchObject({
      fromMe: true,
      source: "app",
      chatId: `${to}@c.us`,
      chatName: "Carla",
      quotedId: question!.payload.id,
    });
    // The business saved the customer in its app's contact book: that name comes first (spec 1 rule 7).
    await changeOf("smb_app_state_sync", {
      messaging_product: "whatsapp",
      metadata: metaOf(),
      state_sync: [
        {
          type: "contact",
          contact: { full_name: "Carla Cliente VIP", first_name: "Carla", phone_number: to },
          action: "add",
          metadata: { timestamp: at() },
        },
      ],
    });
    await waitForEvent(r.c, own.id, "contact.sync", (p) => JSON.stringify(p.contacts).includes("Carla Cliente VIP"));
    await echo("wamid.echoSaved", { text: { body: "já separei" } });
    const [saved] = await waitForEvent(r.c, own.id, "message.any", (p) => p.text === "já separei");
    expect(saved!.payload).toMatchObject({ chatName: "Carla Cliente VIP", quotedId: null });
  });

  it("GET /events lists an official instance's events over HTTP", async () => {
    await r.inbound(n, "5511966661007", { type: "text", text: { body: "para a lista de eventos" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "para a lista de eventos");
    const page = await expectJson<{ data: { event: string; instanceId: string; payload: Record<string, unknown> }[] }>(
      await r.c.as(n.token)(`/v1/instances/${n.id}/events?kind=message,account.alert&limit=500`),
    );
    expect(page.data.every((e) => e.instanceId === n.id && ["message", "account.alert"].includes(e.event))).toBe(true);
    expect(page.data.find((e) => e.payload.text === "para a lista de eventos")).toBeDefined();
    expect(page.data.some((e) => e.event === "account.alert")).toBe(true);
  });
});

describe("duplicates and disorder", () => {
  it("the same webhook twice gives one event; statuses out of order keep the furthest", async () => {
    const from = "5511966660007";
    const { payload } = await r.inbound(n, from, { type: "text", text: { body: "só uma vez" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "só uma vez");
    const body = JSON.stringify(payload).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    await r.ctl("POST", "/mock/webhooks/raw", { body, signature: "valid", appSecret: n.appSecret });
    const [, marker] = await Promise.all([
      r.ctl("POST", "/mock/webhooks/raw", { body, signature: "valid", appSecret: n.appSecret }),
      r.inbound(n, from, { type: "text", text: { body: "marcador" } }),
    ]);
    expect(marker).toBeDefined();
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "marcador");
    expect((await r.c.events(n.id, "message")).filter((e) => e.payload.text === "só uma vez")).toHaveLength(1);

    // Statuses of this customer come only when the test sends them: read first, then delivered.
    await r.ctl("PUT", `/mock/numbers/${n.phoneNumberId}/users/${from}`, { autoStatus: false });
    const out = await expectJson(
      await r.c.as(n.token)(`/v1/instances/${n.id}/messages/text`, {
        method: "POST",
        json: { phone: from, text: "ordem" },
      }),
      201,
    );
    const wamid = String(out.id).split("_")[2]!.replace(/-/g, "+").replace(/~/g, "/");
    const status = (s: string, t: number) => ({ id: wamid, status: s, timestamp: String(t), recipient_id: from });
    const post = (...statuses: Record<string, unknown>[]) =>
      r.ctl("POST", `/mock/numbers/${n.phoneNumberId}/statuses`, { statuses });
    await post(status("read", 1760000003));
    await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "read");
    await post(status("delivered", 1760000002), status("read", 1760000003)); // late delivered, a repeated read
    await waitForEvent(r.c, n.id, "message.ack", (p) => p.id === out.id && p.status === "delivered");
    await r.inbound(n, from, { type: "text", text: { body: "marcador 2" } });
    await waitForEvent(r.c, n.id, "message", (p) => p.text === "marcador 2");
    const acks = (await r.c.events(n.id, "message.ack")).filter((e) => e.payload.id === out.id);
    expect(acks.map((e) => e.payload.status)).toEqual(["read", "delivered"]);
    const stored = await expectJson<{ ack: number; ackName: string }>(
      await r.c.as(n.token)(`/v1/instances/${n.id}/chats/${from}@c.us/messages/${String(out.id)}`),
    );
    expect(stored.ackName).toBe("READ");
  });
});

describe("the operator's other fields", () => {
  const send = (field: string, value: unknown, time?: number) =>
    r.ctl("POST", "/mock/webhooks", { wabaId: n.wabaId, field, value, ...(time ? { time } : {}) });

  it("templates, the number, the account, marketing preferences, contact and history sync", async () => {
    await send(
      "message_template_quality_update",
      {
        previous_quality_score: "GREEN",
        new_quality_score: "YELLOW",
        message_template_id: 806312974732579,
        message_template_name: "welcome_template",
        message_template_language: "pt_BR",
      },
      1760000000,
    );
    await send("template_category_update", {
      message_template_id: 806312974732579,
      message_template_name: "welcome_template",
      message_template_language: "pt_BR",
      previous_category: "UTILITY",
      new_category: "MARKETING",
    });
    await send("phone_number_quality_update", {
      display_phone_number: n.phone,
      event: "THROUGHPUT_UPGRADE",
      current_limit: "TIER_UNLIMITED",
      old_limit: "TIER_2K",
    });
    await send("phone_number_name_update", {
      display_phone_number: n.phone,
      decision: "APPROVED",
      requested_verified_name: "Loja Nova",
      rejection_reason: null,
    });
    await send("account_update", {
      event: "ACCOUNT_RESTRICTION",
      restriction_info: [{ restriction_type: "RESTRICTED_BIZ_INITIATED_MESSAGING", expiration: 1760900000 }],
    });
    await send("account_alerts", {
      entity_type: "PHONE_NUMBER",
      entity_id: n.phoneNumberId,
      alert_info: {
        alert_severity: "WARNING",
        alert_status: "ACTIVE",
        alert_type: "PROFILE_PICTURE_LOST",
        alert_description: "A foto foi removida",
      },
    });
    await send("user_preferences", {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
      contacts: [{ wa_id: "5511966660008" }],
      user_preferences: [
        {
          wa_id: "5511966660008",
          detail: "parar",
          category: "marketing_messages",
          value: "stop",
          timestamp: 1731705721,
        },
      ],
    });
    await send("smb_app_state_sync", {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
      state_sync: [
        {
          type: "contact",
          contact: { full_name: "Carla Dias", first_name: "Carla", phone_number: "5511966660009" },
          action: "add",
          metadata: { timestamp: "1739321024" },
        },
      ],
    });
    await send("history", {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: n.phone, phone_number_id: n.phoneNumberId },
      history: [
        {
          metadata: { phase: 0, chunk_order: 1, progress: 100 },
          threads: [
            {
              id: "5511966660010",
              messages: [
                {
                  from: "5511966660010",
                  id: "wamid.hist1",
                  timestamp: "1739000000",
                  type: "text",
                  text: { body: "antigo" },
                  history_context: { status: "READ" },
                },
                {
                  from: n.phone,
                  to: "5511966660010",
                  id: "wamid.hist2",
                  timestamp: "1739000100",
                  type: "text",
                  text: { body: "resposta antiga" },
                  history_context: { status: "READ" },
                },
              ],
            },
          ],
        },
      ],
    });
    const [quality] = await waitForEvent(r.c, n.id, "template.quality");
    expect(quality!.payload).toMatchObject({
      templateId: "806312974732579",
      name: "welcome_template",
      previousScore: "GREEN",
      newScore: "YELLOW",
      timestamp: 1760000000,
    });
    const [category] = await waitForEvent(r.c, n.id, "template.category");
    expect(category!.payload).toMatchObject({
      previousCategory: "UTILITY",
      newCategory: "MARKETING",
      impending: false,
    });
    const [phoneQuality] = await waitForEvent(r.c, n.id, "phone.quality");
    expect(phoneQuality!.payload).toMatchObject({
      event: "THROUGHPUT_UPGRADE",
      currentLimit: "TIER_UNLIMITED",
      oldLimit: "TIER_2K",
    });
    const [name] = await waitForEvent(r.c, n.id, "phone.name");
    expect(name!.payload).toMatchObject({ decision: "APPROVED", requestedVerifiedName: "Loja Nova" });
    const [account] = await waitForEvent(r.c, n.id, "account.update");
    expect(account!.payload).toMatchObject({
      event: "ACCOUNT_RESTRICTION",
      restrictionInfo: [{ restriction_type: "RESTRICTED_BIZ_INITIATED_MESSAGING" }],
    });
    const [alert] = await waitForEvent(r.c, n.id, "account.alert", (p) => p.alertType === "PROFILE_PICTURE_LOST");
    expect(alert!.payload).toMatchObject({
      entityType: "PHONE_NUMBER",
      alertSeverity: "WARNING",
      alertType: "PROFILE_PICTURE_LOST",
    });
    const [marketing] = await waitForEvent(r.c, n.id, "contact.marketing");
    expect(marketing!.payload).toMatchObject({
      chatId: "5511966660008@c.us",
      value: "stop",
      category: "marketing_messages",
    });
    const [sync] = await waitForEvent(r.c, n.id, "contact.sync", (p) => p.source === "smb_app_state_sync");
    expect(sync!.payload.contacts).toEqual([
      {
        action: "add",
        chatId: "5511966660009@c.us",
        phone: "5511966660009",
        fullName: "Carla Dias",
        firstName: "Carla",
        timestamp: 1739321024,
      },
    ]);
    const [history] = await waitForEvent(
      r.c,
      n.id,
      "history.sync",
      (p) => (p.threads as { chatId: string }[])[0]?.chatId === "5511966660010@c.us",
    );
    expect(history!.payload).toMatchObject({
      phase: 0,
      progress: 100,
      threads: [{ chatId: "5511966660010@c.us", messages: 2 }],
    });
    // History lands in the read model without message events (it is the past).
    const stored = await expectJson<{ body: string; fromMe: boolean }[]>(
      await r.c.as(n.token)(`/v1/instances/${n.id}/chats/5511966660010@c.us/messages?limit=10`),
    );
    expect(stored.map((m) => [m.body, m.fromMe])).toEqual([
      ["resposta antiga", true],
      ["antigo", false],
    ]);
    expect((await r.c.events(n.id, "message")).filter((e) => e.payload.text === "antigo")).toEqual([]);
  });
});
