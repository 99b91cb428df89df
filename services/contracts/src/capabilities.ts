// The capability table: which route each instance kind and provider supports, the core routes'
// entries here and the feature areas' fragments (areas/*.ts) merged in, with its lookups. The
// Capability type and its verdicts live below it in capability.ts (the areas import them from
// there); they are re-exported here so `@gw/contracts/capabilities` still offers them.
import { appsCapabilities } from "./areas/apps.ts";
import { businessCapabilities } from "./areas/business.ts";
import { callsCapabilities } from "./areas/calls.ts";
import { channelsCapabilities } from "./areas/channels.ts";
import { contactsCapabilities } from "./areas/contacts.ts";
import { groupsCapabilities } from "./areas/groups.ts";
import { labelsCapabilities } from "./areas/labels.ts";
import { lidsCapabilities } from "./areas/lids.ts";
import { mediaCapabilities } from "./areas/media.ts";
import { presenceCapabilities } from "./areas/presence.ts";
import { profileCapabilities } from "./areas/profile.ts";
import { statusCapabilities } from "./areas/status.ts";
import { templatesCapabilities } from "./areas/templates.ts";
import { type Capability, supports } from "./capability.ts";
import type { ApiError } from "./errors.ts";
import type { InstanceKind, Provider } from "./instance.ts";

export { type Capability, describeCapability, PROVIDERS_OF_KIND, supports } from "./capability.ts";

const both: Capability = { kinds: "both" };
const standard: Capability = { kinds: "standard" };
const official: Capability = { kinds: "official" };

const BAILEYS_NO_PASSKEY = "O Baileys não tem pareamento por passkey (WebAuthn).";
const LIST_GAP = "Listas não têm formato de envio que funcione em instâncias padrão; use /messages/poll ou texto.";

export const CAPABILITIES = {
  // 4.1 Instance
  "GET /": both,
  "PATCH /settings": both,
  "GET /me": { kinds: "both", official: "The business number and its display name (verified name)." },
  "GET /capping": standard,
  "GET /timelock": standard,
  "POST /start": {
    kinds: "both",
    official: "Checks the operator credentials: WORKING while the operator accepts them, FAILED otherwise.",
  },
  "POST /stop": both,
  "POST /restart": both,
  "POST /logout": { kinds: "both", official: "Stops the instance; the operator credentials are kept." },
  // 4.2 Pairing
  "GET /qr-code": standard,
  "POST /pairing-code": standard,
  "GET /passkey/challenge": { kinds: "standard", gaps: { baileys: BAILEYS_NO_PASSKEY } },
  "POST /passkey": { kinds: "standard", gaps: { baileys: BAILEYS_NO_PASSKEY } },
  "GET /passkey/confirmation": { kinds: "standard", gaps: { baileys: BAILEYS_NO_PASSKEY } },
  "POST /passkey/confirm": { kinds: "standard", gaps: { baileys: BAILEYS_NO_PASSKEY } },
  // 4.4 Sending
  "POST /messages/text": { kinds: "both", official: "Up to 4,096 characters; a preview only with linkPreview: true." },
  "POST /messages/image": { kinds: "both", official: "JPG or PNG up to 5 MB; caption up to 1,024 characters." },
  "POST /messages/file": { kinds: "both", official: "Up to 100 MB; caption up to 1,024 characters." },
  "POST /messages/voice": { kinds: "both", official: "OGG/Opus up to 16 MB (convert: true converts)." },
  "POST /messages/video": {
    kinds: "both",
    official: "MP4 or 3GP up to 16 MB; caption up to 1,024 characters; asNote is ignored.",
  },
  "POST /messages/sticker": { kinds: "both", official: "WEBP 512x512, up to 100 KB (500 KB animated)." },
  "POST /messages/link-preview": {
    kinds: "both",
    official: "Sent as text with the operator's own preview of the URL; the custom image is ignored.",
  },
  "POST /messages/list": {
    kinds: "both",
    gaps: { sim: LIST_GAP, baileys: LIST_GAP },
    official: "An interactive list: up to 10 sections and 10 rows in total; row titles up to 24 characters.",
  },
  "POST /messages/buttons": official,
  "POST /messages/poll": standard,
  "POST /messages/poll/vote": standard,
  "POST /messages/location": both,
  "POST /messages/contact-vcard": { kinds: "both", official: "Structured contacts; a raw vCard is not accepted." },
  "POST /messages/forward": standard,
  "POST /messages/event": standard,
  "POST /messages/template": official,
  "POST /messages/seen": { kinds: "both", official: "Marks the given message, or the last received one, read." },
  "PUT /messages/reaction": both,
  "GET /messages/new-id": both,
  "POST /typing/start": {
    kinds: "both",
    official: "Only within 24 h of a received message; lasts up to 25 s or until the reply.",
  },
  "POST /typing/stop": {
    kinds: "both",
    official: "The operator removes the indicator on the reply; accepted, no call.",
  },
  // 4.5 Chats: what the gateway stored is readable on both kinds; the rest asks the network.
  "GET /chats": { kinds: "both", official: "The conversations the gateway stored from the operator's webhooks." },
  "GET /chats/overview": both,
  "POST /chats/overview": both,
  "GET /chats/{chatId}/picture": standard,
  "GET /chats/{chatId}/messages": both,
  "POST /chats/{chatId}/messages/read": standard,
  "GET /chats/{chatId}/messages/{messageId}": both,
  "PUT /chats/{chatId}/messages/{messageId}": standard,
  "DELETE /chats/{chatId}/messages/{messageId}": standard,
  "POST /chats/{chatId}/unread": standard,
  // 4.10 Queue
  "GET /queue": both,
  "DELETE /queue": both,
  "GET /queue/settings": both,
  "PATCH /queue/settings": both,
  "POST /queue/pause": both,
  "POST /queue/resume": both,
  "GET /queue/{queueId}": both,
  "DELETE /queue/{queueId}": both,
  // 4.11 Business profile, 4.12 templates, number data on the operator side (4.14)
  ...businessCapabilities,
  ...templatesCapabilities,
  // 4.13 Webhooks, recent events (4.14)
  "POST /webhooks": both,
  "GET /webhooks": both,
  "GET /webhooks/{webhookId}": both,
  "PATCH /webhooks/{webhookId}": both,
  "DELETE /webhooks/{webhookId}": both,
  "POST /webhooks/{webhookId}/rotate-secret": both,
  "POST /webhooks/{webhookId}/test": both,
  "GET /webhooks/{webhookId}/deliveries": both,
  "POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry": both,
  "GET /events": both,
  // The feature areas' own routes (contracts/src/areas/<area>.ts)
  ...profileCapabilities,
  ...presenceCapabilities,
  ...labelsCapabilities,
  ...appsCapabilities,
  ...lidsCapabilities,
  ...mediaCapabilities,
  ...statusCapabilities,
  ...channelsCapabilities,
  ...groupsCapabilities,
  ...contactsCapabilities,
  ...callsCapabilities,
} satisfies Record<string, Capability>;

export type RouteKey = keyof typeof CAPABILITIES;

const INSTANCE_ROOT = "/instances/{instanceId}";

/** The table's key of a route given as in the OpenAPI meta (`/instances/{instanceId}/labels`). */
export function routeKey(method: string, openapiPath: string): string | null {
  if (!openapiPath.startsWith(INSTANCE_ROOT)) return null;
  return `${method.toUpperCase()} ${openapiPath.slice(INSTANCE_ROOT.length) || "/"}`;
}

export function capabilityOf(key: string): Capability | undefined {
  return (CAPABILITIES as Record<string, Capability>)[key];
}

/** The 501 a route answers for an instance, or null when it serves it. */
export function capabilityError(key: string, instance: { kind: InstanceKind; provider: Provider }): ApiError | null {
  const cap = capabilityOf(key);
  if (!cap) return null;
  const verdict = supports(cap, instance.kind, instance.provider);
  return verdict === true ? null : verdict;
}
