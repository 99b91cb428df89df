import {
  ApiError,
  CHAT_PRESENCES,
  chatOf,
  chatRequiredUnless,
  DOC_PATTERNS,
  documented,
  type ErrorCode,
  type Instance,
  invalid,
  normalizeChatId,
  PRESENCE_FIRST_READ_WAIT_MS,
  PRESENCE_TO_NETWORK,
  PRESENCE_VALUES,
  type PresenceEntry,
  presenceBody,
  presenceEntrySchema,
  requireWorking,
  successSchema,
} from "@gw/contracts";
import { ChatResolver } from "@gw/sending";
import type { SessionApi } from "@gw/session";
import { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

const tags = ["Presence"];
const NETWORK: ErrorCode[] = [...NETWORK_ERRORS, "not_found"];

const route = areaRoute({ path: "/presence", tags, errors: NETWORK });

const CHAT_MESSAGE = "use um contato (número, @c.us, @lid) ou um grupo (@g.us)";

/** A presence chat: a contact or a group (channels, status and official users have none). */
function presenceChat(raw: string | null): string | null {
  if (raw === null) return null;
  if (/@(c\.us|lid|g\.us)$/.test(raw)) return raw;
  throw invalid("chatId", CHAT_MESSAGE);
}

const chatPath = z.object({
  chatId: documented(
    z.string("informe o chatId").min(1, "informe o chatId").max(200),
    { pattern: DOC_PATTERNS.personOrGroup },
    { description: "Number with country and area code, `<id>@c.us`, `<id>@lid` or `<id>@g.us`" },
  ),
});

function pathChat(raw: string): string {
  const id = normalizeChatId(raw);
  if (!id) throw invalid("chatId", CHAT_MESSAGE);
  return presenceChat(id)!;
}

/** The ninth digit (spec 1 rule 2): a number as the network registered it; none registered is a 404. */
const resolver = new ChatResolver();
async function networkChat(owner: SessionApi, instanceId: string, chatId: string): Promise<string> {
  try {
    return await resolver.resolve(owner, instanceId, chatId);
  } catch (err) {
    if (err instanceof ApiError && err.code === "network_rejected") {
      throw new ApiError("not_found", "Conversa não encontrada: o número não tem conta na rede.");
    }
    throw err;
  }
}

/** The other form of a Brazilian mobile number (with or without the ninth digit), else null. */
function ninthDigitTwin(chatId: string): string | null {
  const m = /^(55\d{2})(9?)([6-9]\d{7})@c\.us$/.exec(chatId);
  if (!m) return null;
  return `${m[1]}${m[2] ? "" : "9"}${m[3]}@c.us`;
}

/** The ids a chat may have been heard under: as given, its number behind a lid, the other ninth-digit form. */
async function heardIds(ctx: InstanceContext, chatId: string): Promise<string[]> {
  const ids = [chatId];
  const known = chatId.endsWith("@lid") ? await ctx.platform.identity.rewrite(ctx.instance.id, chatId) : null;
  if (known && known !== chatId) ids.push(known);
  const twin = ninthDigitTwin(known ?? chatId);
  if (twin) ids.push(twin);
  return ids;
}

type InstanceContext = Context & { instance: Pick<Instance, "id" | "connectionStatus" | "statusReason"> };

/** Subscribes to a chat's presence on the network (the number as registered; 404 without an account). */
async function subscribeChat(ctx: InstanceContext, given: string): Promise<void> {
  const owner = await connectedOwner(ctx);
  const chatId = await networkChat(owner, ctx.instance.id, given);
  await owner.op(ctx.instance.id, "presence.subscribe", { chatId });
}

/**
 * A chat's entry as heard (under any id it may have been heard under). A chat neither heard nor
 * subscribed to is subscribed to by this first read, as WAHA does (platform `PresenceStore.read`).
 */
async function presenceOf(ctx: InstanceContext, chatId: string): Promise<PresenceEntry> {
  // A group has no presence of its own to wait for: its members are heard as they type there.
  const waitMs = chatId.endsWith("@g.us") ? 0 : PRESENCE_FIRST_READ_WAIT_MS;
  return ctx.platform.presence.read(ctx.instance.id, await heardIds(ctx, chatId), () => subscribeChat(ctx, chatId), {
    waitMs,
  });
}

/** Spec 4.9: presence, standard instances (the capability table answers the 501s). */
export const presenceRouter = router({
  presenceSet: route("POST", "", "Set the account's presence, or an indicator in a chat", {
    description:
      "`online`/`offline`: the account's presence, seen by those who follow it (a `chatId` is then ignored); it " +
      "stays as set across reconnections. `offline` also stops the account from marking chats as read " +
      "(POST /messages/seen and /chats/{chatId}/messages/read send nothing) until it is set `online`. " +
      "`typing`/`recording`/`paused`: in the chat given (required).",
    bodyRules: chatRequiredUnless(
      "presence",
      PRESENCE_VALUES.filter((p) => !CHAT_PRESENCES.has(p)),
    ),
  })
    .input(presenceBody)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const perChat = CHAT_PRESENCES.has(input.presence);
      const given = presenceChat(chatOf(input));
      if (perChat && !given) {
        throw invalid("chatId", `informe o chatId: ${input.presence} acontece numa conversa`);
      }
      const owner = await connectedOwner(ctx);
      const chatId = perChat && given ? await networkChat(owner, ctx.instance.id, given) : undefined;
      await owner.op(ctx.instance.id, "presence.set", {
        state: PRESENCE_TO_NETWORK[input.presence],
        ...(chatId ? { chatId } : {}),
      });
      return { success: true as const };
    }),

  presenceList: route("GET", "", "The presence heard of every chat followed", {
    errors: ["instance_not_connected", "network_unavailable"],
    description:
      "What was heard of the subscribed chats (POST /presence/{chatId}/subscribe), the most recent first; an " +
      "entry is kept 24 h after the last change heard. Needs the connection (presence is heard only while " +
      "connected, so a disconnected instance's store would be stale).",
  })
    .output(z.array(presenceEntrySchema))
    .query(({ ctx }) => {
      requireWorking(ctx.instance);
      return ctx.platform.presence.list(ctx.instance.id);
    }),

  presenceGet: route("GET", "/{chatId}", "The presence heard of one chat", {
    description:
      "`presences`: the contact (in a group, each member heard). A chat not subscribed to is subscribed to on " +
      "this first read (as POST /presence/{chatId}/subscribe; 404 for a number without an account or an unknown " +
      "group), and the answer is what the network tells within a second: the contact's presence now, or an " +
      "empty `presences` (a group, a contact who hides it). Subscribed but nothing heard yet: `presences` is empty.",
  })
    .input(chatPath)
    .output(presenceEntrySchema)
    .query(({ ctx, input }): Promise<PresenceEntry> => {
      requireWorking(ctx.instance);
      return presenceOf(ctx, pathChat(input.chatId));
    }),

  presenceSubscribe: route("POST", "/{chatId}/subscribe", "Follow a contact's or a group's presence", {
    description:
      "presence.update events follow for 24 h (call again to renew), across reconnections; the contact's " +
      "presence now comes first. A group: its members typing or recording there. 404 for a number without " +
      "an account or an unknown group.",
  })
    .input(chatPath)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await subscribeChat(ctx, pathChat(input.chatId));
      return { success: true as const };
    }),
});
