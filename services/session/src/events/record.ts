import { formatMessageId, type InboundMessage, type Instance } from "@gw/contracts";
import { extensionOf, type Logger, type Platform } from "@gw/platform";
import type { AckStatus } from "../providers/contract.ts";
import { inboundPayload } from "./inbound.ts";

/**
 * What happens to a message from the network, and to an ack of a message we sent, whoever saw
 * it: a session pod (its provider's events) or the official gateway's inbound processor (the
 * operator's webhooks, which need no connection). One place, so both kinds keep the message, fill
 * the read model and publish the same events (spec 6.2).
 */

type Recording = Pick<Platform, "messages" | "identity" | "mediaLinks" | "events" | "readModel">;

/** Pictures exist on standard instances only (spec 1, kind table): official payloads carry null. */
export function avatarLinks(platform: Pick<Platform, "mediaLinks">, instance: Pick<Instance, "id" | "kind">) {
  return instance.kind === "official"
    ? () => null
    : (chatId: string) => platform.mediaLinks.avatar(instance.id, chatId);
}

/** A message from the network: kept, recorded in the read model, then published as the spec's events. */
export async function recordInbound(
  platform: Recording,
  log: Logger,
  instance: Instance,
  m: InboundMessage,
  opts: { eventId?: (kind: string) => string; publish?: boolean } = {},
): Promise<void> {
  const instanceId = instance.id;
  const { messages, identity, mediaLinks, events } = platform;
  const ext = m.media ? extensionOf(m.media.mimetype, m.media.filename) : "";
  const out = await inboundPayload(instanceId, m, identity, {
    // Inline bytes (sim) are kept with the message; others (Baileys, the Cloud API) are downloaded when asked.
    mediaUrl: (apiId) => mediaLinks.sign(`/v1/files/${instanceId}/${apiId}.${ext}`),
    avatarUrl: avatarLinks(platform, instance),
    quotedFromMe: async (id) => (await messages.get(instanceId, id))?.fromMe ?? null,
    // Spec 1 rule 7: a chat's name the provider does not tell (a channel's reaction, a message sent
    // from the phone, an official echo) is the one the instance learnt.
    chatName: (chatId) => identity.nameOf(instanceId, chatId),
  });
  // The chat's name as the network shows it: sent messages' events carry it too (rule 7).
  if (m.chatName) await identity.learnName(instanceId, out.chatId, m.chatName);
  if (out.kind === "message" && m.content) {
    const participant = m.isGroup && !m.fromMe ? (out.payload.from as { id: string }).id : undefined;
    await messages.save(instanceId, {
      id: m.id,
      chatId: out.chatId,
      fromMe: m.fromMe,
      ...(participant ? { participant } : {}),
      timestamp: m.timestamp,
      content: m.content,
    });
  }
  await platform.readModel
    .record(instance, out.kind, out.payload, {
      networkId: m.id,
      targetId: m.targetId ?? null,
      content: m.content ?? null,
    })
    .catch((err) => log.error({ err, instanceId }, "storing a message failed"));
  const id = opts.eventId;
  if (opts.publish === false) return; // history: the read model only
  if (out.kind !== "message") {
    await events.publish(instance, out.kind, out.payload, id?.(out.kind));
    return;
  }
  if (!m.fromMe) await events.publish(instance, "message", out.payload, id?.("message"));
  await events.publish(instance, "message.any", out.payload, id?.("message.any"));
}

export interface AckInput {
  /** The network's id of the message we sent. */
  id: string;
  chatId: string;
  status: AckStatus;
  timestamp: number;
  error?: string | { code?: number | string; message: string; networkCode?: number } | undefined;
  pricing?: Record<string, unknown> | undefined;
}

/** An ack of a message we sent: the read model moves, then `message.ack` (spec 2.9). */
export async function recordAck(
  platform: Recording,
  log: Logger,
  instance: Instance,
  ack: AckInput,
  opts: { eventId?: string } = {},
): Promise<void> {
  // Acks may name the chat by lid: shown by number when known (spec 1 rule 3).
  const chatId = (await platform.identity.rewrite(instance.id, ack.chatId)) ?? ack.chatId;
  const error = typeof ack.error === "string" ? { message: ack.error } : ack.error;
  // Issued in the same loop turn, so they leave in one write and Redis runs them in this order:
  // whoever the event reaches reads the stored ack already moved.
  const stored = platform.readModel
    .ack(instance, ack.id, ack.status)
    .catch((err) => log.error({ err, instanceId: instance.id }, "storing an ack failed"));
  const published = platform.events.publish(
    instance,
    "message.ack",
    {
      id: formatMessageId({ fromMe: true, chatId, id: ack.id }),
      chatId,
      status: ack.status,
      timestamp: ack.timestamp,
      ...(error ? { error } : {}),
      ...(ack.pricing ? { pricing: ack.pricing } : {}),
    },
    opts.eventId,
  );
  await Promise.all([stored, published]);
}
