// Every event kind an official-gateway instance produces (spec 6.2), driven through the operator
// mock (services/cloudmock) to a real receiver subscribed to `*`: each delivery arrives once, signed
// (spec 6.3), with the headers of 6.1, and its envelope valid against the kind's schema (contracts
// `EVENT_PAYLOAD_SCHEMAS`, the OpenAPI document's `webhooks`). The message kinds are driven here
// too, in their official shapes (pricing, referral, interactive replies, the operator's errors,
// templates). The standard instance's kinds are in event-schemas-standard.test.ts.
import { type EventKind, eventKinds } from "@gw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson } from "../support/e2e-helpers.ts";
import { checkedDelivery, deliveryProblems, type Payload } from "../support/event-checks.ts";
import { type OfficialNumber, type OfficialRig, startOfficial } from "../support/official.ts";
import { type Received, type Receiver, startReceiver } from "../support/receiver.ts";

/** What the operator mock makes an official instance announce, each driven below. */
const OFFICIAL_KINDS: EventKind[] = [
  "message",
  "message.any",
  "message.ack",
  "message.reaction",
  "message.edited",
  "message.revoked",
  "session.status",
  "queue.sent",
  "queue.failed",
  "template.status",
  "template.quality",
  "template.category",
  "phone.quality",
  "phone.name",
  "account.update",
  "account.alert",
  "contact.marketing",
  "contact.sync",
  "history.sync",
  "webhook.test",
];
/** Driven on simnet (event-schemas-standard.test.ts): the operator has no groups, calls, labels… */
const ON_SIMNET: EventKind[] = [
  "message.ack.group",
  "presence.update",
  "group.join",
  "group.leave",
  "group.update",
  "group.participants",
  "group.join_request",
  "poll.vote",
  "event.response",
  "call.received",
  "call.accepted",
  "call.rejected",
  "label.upsert",
  "label.deleted",
  "label.chat.added",
  "label.chat.deleted",
];
/** Kinds neither mock can produce, with why: none (every kind is driven by one of the two). */
const NOT_PRODUCIBLE: Partial<Record<EventKind, string>> = {};

let r: OfficialRig;
let n: OfficialNumber;
let rx: Receiver;
let secret = "";
let hookId = "";
const CUSTOMER = "5511966670001";

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  r.c.as(n.token)(`/v1/instances/${n.id}${path}`, init);
/** A change of the operator's webhook, as the operator sends it (signed by the mock). */
const change = async (field: string, value: unknown) => {
  const res = await r.ctl("POST", "/mock/webhooks", { phoneNumberId: n.phoneNumberId, field, value });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
};
const metadata = () => ({ display_phone_number: n.phone, phone_number_id: n.phoneNumberId });

const problems = (d: Received) => deliveryProblems(d, secret);
const delivered = (kind: EventKind, match?: (p: Payload) => boolean) => checkedDelivery(rx, secret, kind, match);

beforeAll(async () => {
  r = await startOfficial({ env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "1000" } });
  rx = await startReceiver();
  n = await r.number({ start: false });
  // Subscribed before the start: its session.status changes are delivered too.
  const hook = await expectJson<{ id: string; secret: string }>(
    await api("/webhooks", { method: "POST", json: { url: rx.url, events: ["*"] } }),
    201,
  );
  [hookId, secret] = [hook.id, hook.secret];
  await api("/start", { method: "POST" });
  await r.c.waitForStatus(n.id, "WORKING");
}, 60_000);
afterAll(async () => {
  await rx?.close();
  await r?.close();
});

describe("messages", () => {
  it("received (text from an ad, image, replies, an unsupported one), answered, acked, reacted to", async () => {
    const chat = `${CUSTOMER}@c.us`;
    const referral = { source_type: "ad", source_id: "120226", source_url: "https://fb.me/x", ctwa_clid: "Aff-n8Z" };
    await r.inbound(n, CUSTOMER, { type: "text", text: { body: "Vi o anúncio" }, referral });
    const first = await delivered("message", (p) => p.text === "Vi o anúncio");
    expect(first).toMatchObject({ referral: { sourceId: "120226", clickId: "Aff-n8Z" }, chatPicture: null });
    await delivered("message.any", (p) => p.id === first.id);
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    await r.inbound(n, CUSTOMER, {
      type: "image",
      image: { caption: "este" },
      media: { data: png, mimetype: "image/png" },
    });
    expect(await delivered("message", (p) => p.text === "este")).toMatchObject({ type: "image" });
    await r.inbound(n, CUSTOMER, {
      type: "interactive",
      interactive: { type: "list_reply", list_reply: { id: "p1", title: "Azul", description: "38" } },
    });
    expect(await delivered("message", (p) => p.type === "list_reply")).toMatchObject({ interactive: { id: "p1" } });
    await r.inbound(n, CUSTOMER, {
      type: "unsupported",
      unsupported: { type: "poll" },
      errors: [{ code: 131051, title: "Message type unknown", error_data: { details: "Not supported." } }],
    });
    expect(await delivered("message", (p) => p.error !== undefined)).toMatchObject({ error: { code: 131051 } });

    // Answered through the API: `message.any` and its acks, with the operator's pricing.
    const sent = await expectJson<{ id: string }>(
      await api("/messages/text", { method: "POST", json: { phone: CUSTOMER, text: "Temos sim!" } }),
      201,
    );
    expect(await delivered("message.any", (p) => p.id === sent.id)).toMatchObject({ source: "api", from: { id: "" } });
    for (const status of ["sent", "delivered", "read"]) {
      await delivered("message.ack", (p) => p.id === sent.id && p.status === status);
    }
    expect(await delivered("message.ack", (p) => p.id === sent.id && p.pricing !== undefined)).toMatchObject({
      pricing: { pricingModel: "PMP" },
    });
    await expectJson(await api("/messages/reaction", { method: "PUT", json: { messageId: first.id, reaction: "👍" } }));
    expect(await delivered("message.reaction", (p) => p.fromMe)).toMatchObject({ messageId: first.id, emoji: "👍" });
    expect(chat).toBe(first.chatId);
  }, 60_000);

  it("coexistence: the customer's reaction, edit and revocation; an echo of the business app", async () => {
    const { id: original } = await r.inbound(n, CUSTOMER, { type: "text", text: { body: "pedido 1" } });
    const apiId = (await delivered("message", (p) => p.text === "pedido 1")).id;
    await r.inbound(n, CUSTOMER, { type: "reaction", reaction: { message_id: original, emoji: "❤️" } });
    await delivered("message.reaction", (p) => !p.fromMe && p.messageId === apiId);
    await r.inbound(n, CUSTOMER, {
      type: "edit",
      edit: { original_message_id: original, message: { type: "text", text: { body: "pedido 2" } } },
    });
    expect(await delivered("message.edited", (p) => p.messageId === apiId)).toMatchObject({ text: "pedido 2" });
    await r.inbound(n, CUSTOMER, { type: "revoke", revoke: { original_message_id: original } });
    await delivered("message.revoked", (p) => p.messageId === apiId);
    await change("smb_message_echoes", {
      messaging_product: "whatsapp",
      metadata: metadata(),
      message_echoes: [
        {
          from: n.phone,
          to: CUSTOMER,
          id: "wamid.echo9",
          timestamp: "1760000000",
          type: "text",
          text: { body: "app" },
        },
      ],
    });
    expect(await delivered("message.any", (p) => p.text === "app")).toMatchObject({ fromMe: true, source: "app" });
  }, 60_000);

  it("the queue and a template: queue.sent, queue.failed (cancelled), template.status, the template sent", async () => {
    const queued = await expectJson<{ id: string }>(
      await api("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { phone: CUSTOMER, text: "Na fila" },
      }),
      202,
    );
    await delivered("queue.sent", (p) => p.id === queued.id);
    await expectJson(await api("/queue/pause", { method: "POST" }));
    const held = await expectJson<{ id: string }>(
      await api("/messages/text", {
        method: "POST",
        headers: { "x-queue": "true" },
        json: { phone: CUSTOMER, text: "Cancelada" },
      }),
      202,
    );
    await expectJson(await api(`/queue/${held.id}`, { method: "DELETE" }));
    expect(await delivered("queue.failed", (p) => p.id === held.id)).toMatchObject({ status: "cancelled" });
    await expectJson(await api("/queue/resume", { method: "POST" }));

    const template = { name: "pedido_pronto", language: "pt_BR" };
    await expectJson(
      await api("/templates", {
        method: "POST",
        json: { ...template, category: "UTILITY", components: [{ type: "BODY", text: "Olá {{1}}, pronto." }] },
      }),
      201,
    );
    await delivered("template.status", (p) => p.name === template.name && p.status === "APPROVED");
    const sent = await expectJson<{ id: string }>(
      await api("/messages/template", {
        method: "POST",
        json: { phone: CUSTOMER, template: { ...template, body: ["Ana"] } },
      }),
      201,
    );
    expect(await delivered("message.any", (p) => p.id === sent.id)).toMatchObject({ template });
  }, 60_000);
});

describe("the operator's other fields", () => {
  it("templates, the number, the account, marketing preferences", async () => {
    const ref = {
      message_template_id: 806312974732579,
      message_template_name: "promo",
      message_template_language: "pt_BR",
    };
    await change("message_template_quality_update", {
      ...ref,
      previous_quality_score: "GREEN",
      new_quality_score: "YELLOW",
    });
    await delivered("template.quality");
    await change("template_category_update", {
      ...ref,
      correct_category: "MARKETING",
      category_update_timestamp: 1_760_000_000,
    });
    expect(await delivered("template.category")).toMatchObject({ impending: true });
    await change("phone_number_quality_update", {
      display_phone_number: n.phone,
      event: "FLAGGED",
      current_limit: "TIER_1K",
    });
    await delivered("phone.quality");
    await change("phone_number_name_update", {
      display_phone_number: n.phone,
      decision: "REJECTED",
      rejection_reason: "x",
    });
    await delivered("phone.name");
    await change("account_update", { event: "VERIFIED_ACCOUNT", waba_info: { waba_id: n.wabaId } });
    expect(await delivered("account.update")).toMatchObject({
      event: "VERIFIED_ACCOUNT",
      wabaInfo: { waba_id: n.wabaId },
    });
    await change("account_alerts", {
      entity_type: "PHONE_NUMBER",
      entity_id: n.phoneNumberId,
      alert_info: {
        alert_severity: "CRITICAL",
        alert_status: "ACTIVE",
        alert_type: "OBA_APPROVED",
        alert_description: "ok",
      },
    });
    await delivered("account.alert", (p) => p.alertType === "OBA_APPROVED");
    // An error the operator reports for a whole change is an alert too, with the error.
    await change("messages", {
      messaging_product: "whatsapp",
      metadata: metadata(),
      errors: [{ code: 131000, title: "Something went wrong", error_data: { details: "Unsupported webhook payload" } }],
    });
    expect(await delivered("account.alert", (p) => p.alertType === "OPERATOR_ERROR")).toMatchObject({
      error: { code: 131000 },
      field: "messages",
    });
    await change("user_preferences", {
      messaging_product: "whatsapp",
      metadata: metadata(),
      user_preferences: [{ wa_id: CUSTOMER, category: "marketing_messages", value: "stop", timestamp: 1_760_000_000 }],
    });
    expect(await delivered("contact.marketing")).toMatchObject({ value: "stop", chatId: `${CUSTOMER}@c.us` });
  }, 60_000);

  it("coexistence sync: the address book, a changed number, a business-scoped id, the history", async () => {
    await change("smb_app_state_sync", {
      messaging_product: "whatsapp",
      metadata: metadata(),
      state_sync: [
        {
          type: "contact",
          contact: { full_name: "Carla Dias", first_name: "Carla", phone_number: "5511966670009" },
          action: "add",
          metadata: { timestamp: "1739321024" },
        },
      ],
    });
    await delivered("contact.sync", (p) => p.source === "smb_app_state_sync");
    await r.inbound(n, "5511966670010", {
      type: "system",
      system: { type: "user_changed_number", body: "Mudou de número", wa_id: "5511966670011" },
    });
    expect(await delivered("contact.sync", (p) => p.source === "system")).toMatchObject({
      contacts: [{ action: "user_changed_number", newPhone: "5511966670011" }],
    });
    await change("user_id_update", { messaging_product: "whatsapp", metadata: metadata(), user_id: "US.1" });
    await delivered("contact.sync", (p) => p.source === "user_id_update");
    const thread = {
      id: "5511966670012",
      messages: [
        { from: "5511966670012", id: "wamid.h1", timestamp: "1739000000", type: "text", text: { body: "antigo" } },
      ],
    };
    await change("history", {
      messaging_product: "whatsapp",
      metadata: metadata(),
      history: [{ metadata: { phase: 0, chunk_order: 1, progress: 100 }, threads: [thread] }],
    });
    expect(await delivered("history.sync")).toMatchObject({ threads: [{ chatId: "5511966670012@c.us", messages: 1 }] });
  }, 60_000);
});

describe("every delivery", () => {
  it("webhook.test, then: each event of the instance arrived once, signed and valid; every kind seen", async () => {
    await expectJson(await api(`/webhooks/${hookId}/test`, { method: "POST" }));
    await delivered("webhook.test");
    await delivered("session.status", (p) => p.status === "WORKING");

    const history = await r.c.events(n.id);
    await rx.waitFor((all) => history.every((e) => all.some((d) => d.envelope.id === e.id)), 20_000);
    // The 7-day history (kept smaller: services/platform/src/events/history-codec.ts) gives back
    // each event byte for byte as it was delivered, read as the live streams read it.
    const key = r.c.platform.events.streamKey(n.id);
    const kept = new Map((await r.c.platform.events.after(key, "0-0", 10_000, n.id)).map((e) => [e.id, e.envelope]));
    expect(kept.size).toBe(history.length);
    const inHistory = rx.received.filter((d) => kept.has(d.envelope.id));
    expect(inHistory).toHaveLength(kept.size);
    expect(inHistory.filter((d) => kept.get(d.envelope.id) !== d.rawBody).map((d) => d.envelope.event)).toEqual([]);
    const failures = rx.received.flatMap((d) => problems(d).map((p) => `${d.envelope.event} ${d.envelope.id}: ${p}`));
    expect(failures).toEqual([]);
    const counts = new Map<string, number>();
    for (const d of rx.received) counts.set(d.envelope.id, (counts.get(d.envelope.id) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count !== 1)).toEqual([]);
    expect(rx.received.every((d) => d.envelope.instanceId === n.id)).toBe(true);
    const seen = new Set(rx.received.map((d) => d.envelope.event));
    expect(OFFICIAL_KINDS.filter((k) => !seen.has(k))).toEqual([]);
    // Between the two files, every kind of spec 6.2 (or the reason it cannot be driven).
    const covered = [...OFFICIAL_KINDS, ...ON_SIMNET, ...Object.keys(NOT_PRODUCIBLE)];
    expect(new Set(covered)).toEqual(new Set(eventKinds));
  }, 60_000);
});
