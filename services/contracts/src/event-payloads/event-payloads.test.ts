// The registry of event payloads (spec 2.11, 6.2): one schema per kind, strict where the gateway
// builds the payload, open only where the operator's own data passes through. Each kind's payload
// as the providers emit it is checked end to end in test/e2e/event-schemas-*.test.ts.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { eventKinds } from "../events.ts";
import { EVENT_PAYLOAD_SCHEMAS, eventEnvelopeSchemaOf } from "./index.ts";

const contact = { id: "5511988887777@c.us", phone: "5511988887777", lid: null, pushName: "Maria" };
const message = {
  id: "false_5511988887777@c.us_3A6F1B2C9D8E7F60A1B2",
  chatId: "5511988887777@c.us",
  chatLid: null,
  isGroup: false,
  chatName: "Maria",
  chatPicture: null,
  fromMe: false,
  from: { ...contact, picture: null },
  timestamp: 1_768_487_465,
  type: "text",
  text: "Oi",
  quotedId: null,
  referral: null,
  raw: { anything: ["the network's"] },
};
const envelope = (event: string, payload: unknown) => ({
  id: "evt_01kf0v7x9d2f4h6k8m0p2r4t6v",
  event,
  instanceId: "i3k9m2x7q4w8e1r5t6y0u2",
  provider: "sim",
  timestamp: 1_768_487_465_000,
  payload,
  me: { id: "5511977776666@c.us", phone: "5511977776666", pushName: "Loja" },
});

describe("EVENT_PAYLOAD_SCHEMAS", () => {
  it("has a schema for every event kind, each a named component of the OpenAPI document", () => {
    expect(Object.keys(EVENT_PAYLOAD_SCHEMAS).sort()).toEqual([...eventKinds].sort());
    for (const [kind, schema] of Object.entries(EVENT_PAYLOAD_SCHEMAS)) {
      expect(z.globalRegistry.get(schema)?.id, kind).toMatch(/^[A-Z]\w+Payload$/);
    }
  });

  it("accepts what the builders emit, and refuses a field no builder sets, at any depth", () => {
    const schema = EVENT_PAYLOAD_SCHEMAS.message;
    expect(schema.safeParse(message).success).toBe(true);
    expect(schema.safeParse({ ...message, source: "api", status: "sent" }).success).toBe(true);
    expect(schema.safeParse({ ...message, extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ ...message, from: { ...message.from, extra: 1 } }).success).toBe(false);
    expect(schema.safeParse({ ...message, type: "reaction" }).success).toBe(false);
    const update = { chatId: "1@g.us", group: { id: "1@g.us", name: "Equipe" }, by: contact, timestamp: 1 };
    const settings = EVENT_PAYLOAD_SCHEMAS["group.update"];
    expect(settings.safeParse({ ...update, changed: "settings", settings: { joinApproval: true } }).success).toBe(true);
    expect(settings.safeParse({ ...update, changed: "settings", settings: { other: true } }).success).toBe(false);
  });

  it("is open only where the operator's value passes through (`account.update`, `raw`)", () => {
    const update = { event: "ACCOUNT_RESTRICTION", restrictionInfo: [{ x: 1 }], timestamp: 1, raw: {} };
    expect(EVENT_PAYLOAD_SCHEMAS["account.update"].safeParse(update).success).toBe(true);
  });
});

describe("eventEnvelopeSchemaOf", () => {
  it("is the envelope of spec 2.11 with `event` fixed to the kind and its payload's schema", () => {
    const of = eventEnvelopeSchemaOf("message");
    expect(of.safeParse(envelope("message", message)).success).toBe(true);
    expect(of.safeParse(envelope("message.any", message)).success).toBe(false);
    expect(of.safeParse(envelope("message", { ...message, id: 1 })).success).toBe(false);
    expect(of.safeParse({ ...envelope("message", message), extra: 1 }).success).toBe(false);
  });
});
