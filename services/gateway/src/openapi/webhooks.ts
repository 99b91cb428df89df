import {
  EVENT_PAYLOAD_SCHEMAS,
  type EventKind,
  eventEnvelopeSchema,
  eventKinds,
  messageBaseSchema,
  queueItemSchema,
} from "@gw/contracts";
import { z } from "zod";
import { createSchema } from "zod-openapi";
import { openObjects } from "./open-objects.ts";

/**
 * The document's `webhooks` (OpenAPI 3.1): one per event kind (spec 6.2), the `POST` a webhook
 * receives — the envelope (spec 2.11) with `event` fixed to the kind and `payload` its schema
 * (contracts `EVENT_PAYLOAD_SCHEMAS`), the delivery headers (6.1, 6.3) — answered with any 2xx
 * (6.4). The payloads' shared parts (a contact, a message's sender and media, the message payload)
 * are `components.schemas`, referred to by `$ref`.
 */

/** Spec 6.2: when each kind is sent, and on which instance kinds. */
const WHEN: Record<EventKind, string> = {
  message: "A message was received (both)",
  "message.any": "A message received or sent by the account (`fromMe`) (both)",
  "message.ack": "A sent message's status: sent, delivered, read, played, failed (both)",
  "message.reaction": "A reaction added or removed (empty `emoji`) (both)",
  "message.edited": "A message's text edited (official: coexistence)",
  "message.revoked": "A message deleted for everyone (official: coexistence)",
  "session.status": "The connection changed (both)",
  "queue.sent": "A queued send was sent (both)",
  "queue.failed": "A queued send failed, expired or was cancelled (both)",
  "message.ack.group": "A group member received, read or played our message (standard)",
  "presence.update": "Presence heard in a subscribed chat (standard)",
  "group.join": "This number joined or was added to a group (standard)",
  "group.leave": "This number left or was removed from a group (standard)",
  "group.update": "A group's subject, description, invite, picture or settings (standard)",
  "group.participants": "Members added, removed, promoted, demoted (standard)",
  "group.join_request": "A request to join a group (standard)",
  "poll.vote": "A vote in a poll (standard)",
  "event.response": "A reply to a calendar event (standard)",
  "call.received": "A call rings (standard)",
  "call.accepted": "A call answered on another device (standard)",
  "call.rejected": "A call ended unanswered (standard)",
  "label.upsert": "A label created or changed (standard)",
  "label.deleted": "A label deleted (standard)",
  "label.chat.added": "A chat labeled (standard)",
  "label.chat.deleted": "A chat's label removed (standard)",
  "template.status": "A template approved, rejected, paused… (official)",
  "template.quality": "A template's quality score (official)",
  "template.category": "A template's category changed, or will (official)",
  "phone.quality": "The number's quality or messaging limit (official)",
  "phone.name": "The display name approved or refused (official)",
  "account.update": "Violation, restriction or verification of the account (official)",
  "account.alert": "An alert, or an error the operator reported (official)",
  "contact.marketing": "A customer stopped or resumed marketing messages (official)",
  "contact.sync": "Coexistence: the business app's address book (official)",
  "history.sync": "Coexistence: a chunk of the business app's history (official)",
  "webhook.test": "`POST /webhooks/{webhookId}/test` (both)",
};

/** Spec 6.1 and 6.3: what each delivery carries besides its body. */
const HEADERS = [
  ["X-Service-Event", "The event kind, equal to `event` in the body", undefined],
  ["X-Service-Event-Id", "The event id, equal to `id` in the body: drop duplicates by it", "^evt_[0-9a-z]{26}$"],
  [
    "X-Service-Delivery",
    "This delivery's id, the same for its automatic retries, new for a manual resend",
    "^dlv_[0-9a-z]{26}$",
  ],
  [
    "X-Service-Signature",
    "`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<t>.<raw body>` keyed with the webhook's `secret`. " +
      "Compute it on the raw body, compare in constant time, refuse a `t` 300 s or more from now (spec 6.3)",
    "^t=\\d+,v1=[0-9a-f]{64}$",
  ],
] as const;

type Json = Record<string, unknown>;

/**
 * Payloads that are another schema plus fields (a message event's common fields, a call's, a
 * label's, a queue item's) refer to it: `allOf` that schema and what they add or narrow (a queue
 * item's `status`), instead of a copy of its fields.
 */
const EXTENDS: [string, string][] = [
  ["MessagePayload", "MessageBase"],
  ["MessageReactionPayload", "MessageBase"],
  ["MessageEditedPayload", "MessageBase"],
  ["MessageRevokedPayload", "MessageBase"],
  ["PollVotePayload", "MessageBase"],
  ["EventResponsePayload", "MessageBase"],
  ["MessageSender", "EventContact"],
  ["CallRejectedPayload", "CallPayload"],
  ["LabelEventPayload", "Label"],
  ["QueueSentPayload", "QueueItem"],
  ["QueueFailedPayload", "QueueItem"],
];

function extend(schemas: Record<string, Json>, name: string, baseName: string): void {
  const schema = schemas[name]!;
  const base = schemas[baseName]!;
  const props = { ...(schema.properties as Json) };
  const baseProps = base.properties as Json;
  const required = new Set(schema.required as string[]);
  for (const [key, value] of Object.entries(baseProps)) {
    if (!(key in props)) throw new Error(`OpenAPI webhooks: ${name} lacks ${baseName}.${key}`);
    if (JSON.stringify(props[key]) === JSON.stringify(value)) delete props[key];
  }
  for (const key of (base.required as string[] | undefined) ?? []) {
    if (!required.delete(key)) throw new Error(`OpenAPI webhooks: ${name} does not require ${baseName}.${key}`);
  }
  const { properties: _p, required: _r, type: _t, ...rest } = schema;
  schemas[name] = {
    allOf: [{ $ref: `#/components/schemas/${baseName}` }],
    type: "object",
    properties: props,
    ...(required.size > 0 ? { required: [...required] } : {}),
    ...rest,
  };
}

/**
 * Adds the webhooks to the document and the schemas they refer to to `schemas` (its
 * `components.schemas`); a schema the routes have too (`EventEnvelope`, `Label`, `QueueItem`) must
 * be the same one.
 */
export function addWebhooks(doc: { webhooks?: unknown }, schemas: Record<string, unknown>): void {
  // One conversion of every payload (as the gateway sends them: output): each schema with an id
  // becomes a component, and the wrapper's properties name them.
  const wrapper = z.object({
    ...EVENT_PAYLOAD_SCHEMAS,
    envelope: eventEnvelopeSchema,
    base: messageBaseSchema,
    queueItem: queueItemSchema,
  });
  const { schema, components } = createSchema(wrapper, { io: "output" });
  const added = openObjects(components) as Record<string, Json>;
  const same = (a: unknown) => JSON.stringify(openObjects(structuredClone(a)));
  for (const [name, s] of Object.entries(added)) {
    if (name in schemas && same(schemas[name]) !== same(s)) {
      throw new Error(`OpenAPI: the event schema ${name} differs from the routes' schema of that name`);
    }
  }
  for (const [name, base] of EXTENDS) extend(added, name, base);
  for (const [name, s] of Object.entries(added)) schemas[name] ??= s;

  const props = (schema as { properties: Record<string, { $ref?: string }> }).properties;
  const envelope = props.envelope?.$ref;
  if (!envelope) throw new Error("OpenAPI webhooks: the envelope has no component");
  const webhooks: Record<string, unknown> = {};
  for (const kind of eventKinds) {
    const payload = props[kind];
    if (!payload?.$ref) throw new Error(`OpenAPI webhooks: the payload of ${kind} has no component`);
    webhooks[kind] = {
      post: {
        summary: WHEN[kind],
        parameters: HEADERS.map(([name, description, pattern]) => ({
          name,
          in: "header",
          required: true,
          description,
          schema: { type: "string", ...(pattern ? { pattern } : {}) },
        })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { allOf: [{ $ref: envelope }, { properties: { event: { const: kind }, payload } }] },
            },
          },
        },
        responses: { "2XX": { description: "Received: 2xx within 10 s, else retried (spec 6.4)" } },
      },
    };
  }
  doc.webhooks = webhooks;
}
