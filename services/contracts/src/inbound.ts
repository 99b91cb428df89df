import { z } from "zod";
import type { OutboundContent } from "./outbound.ts";

/**
 * A message as a provider reports it (received, or sent from the phone / another linked
 * device), before the session pod turns it into the spec 2.11 payload. Ids are the network's;
 * `chatId` / `from.id` may be privacy ids (`@lid`) — the pod rewrites them when it knows the
 * number behind them (spec 1 rule 3).
 */
export const inboundPartySchema = z.object({
  id: z.string(),
  phone: z.string().nullable(),
  lid: z.string().nullable(),
  pushName: z.string().nullable(),
});
export type InboundParty = z.infer<typeof inboundPartySchema>;

export interface InboundMessage {
  id: string;
  chatId: string;
  chatLid: string | null;
  chatName: string | null;
  isGroup: boolean;
  fromMe: boolean;
  from: InboundParty;
  timestamp: number;
  /** Spec 2.11 `type` and the content's fields (text, caption, media mimetype, location, …). */
  type: string;
  text: string | null;
  media: { mimetype: string; filename?: string | null } | null;
  /** For reactions, edits, revocations and votes: the network id of the message they name. */
  targetId?: string | null;
  /**
   * Whether the message `targetId` names is the account's, when the provider knows it (a channel
   * post's reaction); otherwise the session looks it up among the messages it kept.
   */
  targetFromMe?: boolean | null;
  /** Reactions to a channel post: the channel's sequence number of the post (`server_id`). */
  serverId?: string | null;
  /** Reactions to a channel post, when the network tells it (simnet): the emoji's total on the post now. */
  count?: number | null;
  emoji?: string;
  selectedOptions?: string[];
  /** Replies to calendar events: `going`, `not_going` or `maybe`. */
  response?: string;
  quotedId?: string | null;
  mentions?: string[];
  forwarded?: boolean;
  /** On `fromMe` copies: sent from the phone or another linked device (spec `source: "app"`). */
  origin?: "phone" | "device" | null;
  referral?: Record<string, string> | null;
  /** Official gateway: the reply button or list row the customer chose (`button_reply`, `list_reply`). */
  interactive?: { type: string; id: string; title: string; description?: string } | null;
  /**
   * Official gateway: the operator could not hand the message over (`messages[].errors`, e.g.
   * 131051 for a type the Cloud API does not support): its code, title and details.
   */
  error?: { code: number | null; message: string; details: string | null } | null;
  /** The network's own event, as received. */
  raw: unknown;
  /** The media bytes when the provider has them inline (sim); Baileys downloads on demand. */
  mediaData?: string | null;
  /** The content in the provider contract's shape, when the provider can give it (forwarding it later). */
  content?: OutboundContent;
}
