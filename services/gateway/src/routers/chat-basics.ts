import { randomBytes } from "node:crypto";
import { CHAT_REQUIRED, DOC_PATTERNS, documented, invalid, requireChat, successSchema } from "@gw/contracts";
import { z } from "zod";
import { connectedOwner } from "../trpc/connected.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

/** Channels and status have no typing indicator: their ids are refused here, with a reason. */
const typingChatField = (description: string) =>
  documented(z.string().max(200).optional(), { pattern: DOC_PATTERNS.typingChat }, { description });
const typingInput = z.object({
  chatId: typingChatField("Number with country and area code, or a person's or group's JID"),
  phone: typingChatField("Alias of chatId"),
});

function typingChat(input: z.infer<typeof typingInput>): string {
  const chatId = requireChat(input);
  if (/@(newsletter|broadcast)$/.test(chatId)) {
    throw invalid(
      "chatId",
      "o indicador de digitação só existe em conversas com pessoas e grupos (não em canais nem em status)",
    );
  }
  return chatId;
}

/**
 * The first routes of spec 4.4 that need no message store: message ids and the typing indicator
 * (the number check moved to the contacts area, routers/contacts.ts).
 */
export const chatBasicsRouter = router({
  newMessageId: instanceProcedure
    .meta({
      auth: "instance",
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/messages/new-id",
        tags: ["Messages"],
        summary: "A fresh message id, to give as `id` on a send (retries then never send twice)",
      },
    })
    .output(z.object({ id: z.string() }))
    // The network's own shape of ids made by linked devices: 3EB0 + 18 hex digits.
    .query(() => ({ id: `3EB0${randomBytes(9).toString("hex").toUpperCase()}` })),

  typingStart: instanceProcedure
    .meta({
      auth: "instance",
      bodyRules: CHAT_REQUIRED,
      errors: ["instance_not_connected", "network_unavailable", "network_timeout"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/typing/start",
        tags: ["Messages"],
        summary: "Show the typing indicator in a chat until /typing/stop or the next send",
      },
    })
    .input(typingInput)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const chatId = typingChat(input);
      await (await connectedOwner(ctx)).presence(ctx.instance.id, "composing", chatId);
      return { success: true as const };
    }),

  typingStop: instanceProcedure
    .meta({
      auth: "instance",
      bodyRules: CHAT_REQUIRED,
      errors: ["instance_not_connected", "network_unavailable", "network_timeout"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/typing/stop",
        tags: ["Messages"],
        summary: "Remove the typing indicator",
      },
    })
    .input(typingInput)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const chatId = typingChat(input);
      await (await connectedOwner(ctx)).presence(ctx.instance.id, "paused", chatId);
      return { success: true as const };
    }),
});
