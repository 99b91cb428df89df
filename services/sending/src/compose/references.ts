import { invalid, requireChat } from "@gw/contracts";
import type { StoredMessage } from "@gw/platform";
import { type ComposeDeps, type ComposerTable, resolveRef } from "./shared.ts";

/** The kept message a forward sends again, with its media. */
async function forwardable(instanceId: string, messageId: string, deps: ComposeDeps): Promise<StoredMessage> {
  const ref = await resolveRef(instanceId, messageId, "messageId", deps.messages);
  if (!ref.stored)
    throw invalid("messageId", "mensagem não encontrada (só se encaminham mensagens dos últimos 7 dias)");
  if (!ref.stored.mediaKept) throw invalid("messageId", "a mídia desta mensagem não está mais disponível");
  return ref.stored;
}

/** Sends that name a message already known: a vote in a poll (its chat may come from it) and a forward. */
export const referenceKinds: Pick<ComposerTable, "poll/vote" | "forward"> = {
  "poll/vote": {
    compose: async ({ instance, req: { body: b }, deps }, options) => {
      const poll = await resolveRef(instance.id, b.pollMessageId, "pollMessageId", deps.messages);
      const chatId = (b.chatId ?? b.phone) ? requireChat(b) : poll.chatId;
      if (!chatId) throw invalid("chatId", "informe o chatId (a enquete não é conhecida por este id)");
      return { chatId, content: { type: "poll_vote", pollId: poll.id, votes: b.votes.flat() }, options };
    },
  },

  forward: {
    check: async ({ instance, req, deps }) => {
      await forwardable(instance.id, req.body.messageId, deps);
    },
    compose: async ({ instance, req: { body: b }, deps }, options) => {
      const chatId = requireChat(b);
      const stored = await forwardable(instance.id, b.messageId, deps);
      // The record keeps a reference to its media: the bytes come back from the media store.
      const content = await deps.messages.contentWithMedia(instance.id, stored);
      if (!content) throw invalid("messageId", "a mídia desta mensagem não está mais disponível");
      return { chatId, content, options: { ...options, forwarded: true } };
    },
  },
};
