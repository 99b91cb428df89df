import { formatMessageId, type OutboundContent, type SendOptions, type SendResult } from "@gw/contracts";
import { extensionOf, type Logger, MESSAGE_MEDIA_KEEP_MAX, type Platform } from "@gw/platform";
import { avatarLinks } from "./record.ts";
import { sentEvent } from "./sent.ts";

/** What a send knows once the network accepted it. */
export interface Sent {
  instanceId: string;
  /** The chat the network sent to (a `@lid` when it chose one). */
  sentTo: string;
  content: OutboundContent;
  options: SendOptions;
  /** The answer, its chat as shown (spec 1 rule 3: a lid whose number is known shows the number). */
  result: SendResult;
  /** The provider reports the `sent` ack itself (else it is announced here, with the message). */
  reportsSentAck: boolean;
  /** The chat's name as learnt, else as the provider tells it. */
  chatName: (chatId: string) => Promise<string | null>;
}

/**
 * What a message we sent leaves behind: the kept message (forwards, reactions and quotes find it
 * by id), its read-model document, its `message.any` (or reaction/edit/revoke, or a vote's
 * `poll.vote`) event with a signed link to its media, and its `sent` ack — written together,
 * after the answer is known. A failure here is logged, not thrown: the network has the message,
 * so the send succeeded.
 */
export async function recordSent(platform: Platform, log: Logger, sent: Sent): Promise<void> {
  const { instanceId, sentTo, content, options, result } = sent;
  const { messages, identity, mediaLinks } = platform;
  const shown = result.chatId;
  const instance = await platform.instanceCache.get(instanceId);
  if (!instance) return;
  const chatLid = sentTo.endsWith("@lid")
    ? sentTo
    : shown.endsWith("@c.us")
      ? await identity.lidOf(instanceId, shown.split("@")[0]!)
      : null;
  // A vote names its poll, a reaction its message, as the phone's own do: ours or someone else's, as stored.
  const named = content.type === "poll_vote" ? content.pollId : content.type === "reaction" ? content.targetId : null;
  const targetFromMe = named ? ((await messages.get(instanceId, named).catch(() => null))?.fromMe ?? null) : null;
  const event = sentEvent(instance, shown, content, options, result, avatarLinks(platform, instance), {
    chatLid,
    chatName: await sent.chatName(shown),
    targetFromMe,
  });
  const media = "media" in content ? content.media : undefined;
  if (event && media && event.payload.media && media.data.length * 0.75 <= MESSAGE_MEDIA_KEEP_MAX) {
    const ext = extensionOf(media.mimetype, media.filename);
    const url = mediaLinks.sign(`/v1/files/${instanceId}/${String(event.payload.id)}.${ext}`);
    event.payload.media = { ...(event.payload.media as object), url };
  }
  // A text-like send's read-model document keeps its content whole: it is the kept message
  // (messages.ts), one write instead of two.
  const keep = event?.kind === "message.any" && platform.readModel.keeps(instance, event.payload, content);
  await Promise.all([
    keep
      ? null
      : messages.save(instanceId, { id: result.id, chatId: shown, fromMe: true, timestamp: result.timestamp, content }),
    event ? platform.events.publish(instance, event.kind, event.payload) : null,
    event
      ? platform.readModel.record(instance, event.kind, event.payload, {
          networkId: result.id,
          targetId: "targetId" in content ? content.targetId : null,
          content,
          keep,
        })
      : null,
    // The network accepting the send is its `sent` ack: announced here, with the message, in
    // the same write. Neither network reports it to the device that sent (simnet answers the
    // send instead, as the real network does; the Baileys provider drops a `sender` receipt).
    sent.reportsSentAck
      ? null
      : platform.events.publish(instance, "message.ack", {
          id: formatMessageId({ fromMe: true, chatId: shown, id: result.id }),
          chatId: shown,
          status: "sent",
          timestamp: result.timestamp,
        }),
  ]).catch((err) => log.error({ err, instanceId }, "recording a sent message failed"));
}
