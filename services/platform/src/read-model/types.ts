// The read model's shapes: what is stored, what reads answer (spec 2.8, 2.10), and their queries.
import type { OutboundContent } from "@gw/contracts";
import type { AckName } from "./acks.ts";

/** Spec 2.8 `location`: coordinates as strings, as the network gives them. */
export interface MessageLocation {
  latitude: string;
  longitude: string;
  live: boolean;
  name?: string;
  description?: string;
  address?: string;
  url?: string;
  thumbnail?: string;
}

/** A stored message: what the spec 2.11 payload said, in the form reads need. Absent fields are empty. */
export interface MessageDoc {
  networkId: string;
  /** The chat as it was known when the message was stored (a privacy id stays one here; reads rewrite). */
  chatId: string;
  chatLid?: string;
  isGroup?: true;
  fromMe: boolean;
  /** Group messages from others: the sender, and its lid. */
  participant?: string;
  participantLid?: string;
  pushName?: string;
  timestamp: number;
  /** timestamp × 1000 + arrival ms within the second: the score in the message sets; ties follow arrival. */
  sortKey: number;
  /** Not in the stored JSON: read from the message's ack set (acks.ts) and set here by reads. */
  ack: number;
  type: string;
  body: string;
  hasMedia?: true;
  media?: { mimetype: string; filename?: string; available: boolean };
  source?: "api" | "app";
  quotedId?: string;
  vCards?: string[];
  location?: MessageLocation;
  mentions?: string[];
  forwarded?: true;
  edited?: true;
  editedAt?: number;
  revoked?: true;
  revokedAt?: number;
  raw?: unknown;
  /**
   * `raw` is the content as sent (an API send without media bytes): the message store's kept
   * message for 7 days is this document (store/messages.ts), not a record of its own.
   */
  keeps?: true;
}

/** What a chat list shows of its last message when the message itself is not stored. */
export interface LastMessageSummary {
  id: string;
  body: string;
  type: string;
  fromMe: boolean;
  hasMedia: boolean;
  timestamp: number;
}

/**
 * A chat's record (indexed): what changes rarely. What every message changes (the last message,
 * unread counts) is its {@link ChatState}, outside the index: a write to an indexed document
 * re-indexes all of it.
 */
export interface ChatDoc {
  instanceId: string;
  chatId: string;
  lid: string | null;
  name: string | null;
  isGroup: boolean;
  /** A chat kept under a privacy id whose conversation now continues under the number. */
  merged: boolean;
  mergedInto: string | null;
  picture: string | null;
  sortName: string;
  sortId: string;
}

/** A chat's state (`rchs:` hash): its last message and unread marks. */
export interface ChatState {
  /** sortKey of the last message (also its score in the chat order sets). */
  lastMessageAt: number;
  timestamp: number;
  lastMessageId: string;
  lastMessage: LastMessageSummary | null;
  unreadCount: number;
  markedUnread: boolean;
}

export interface MessageMedia {
  url: string | null;
  mimetype: string;
  filename: string | null;
  error: string | null;
}

export interface MessageView {
  id: string;
  chatId: string;
  from: string;
  to: string;
  author: string | null;
  participant: string | null;
  body: string;
  type: string;
  fromMe: boolean;
  hasMedia: boolean;
  ack: number;
  ackName: AckName;
  timestamp: number;
  source: "api" | "app" | null;
  /** The original privacy id (spec 1 rule 4): the chat's, or the group participant's. */
  lid: string | null;
  vCards: string[];
  mediaUrl?: string | null;
  media: MessageMedia | null;
  location: MessageLocation | null;
  quotedId: string | null;
  replyTo: {
    id: string;
    body: string | null;
    hasMedia: boolean;
    media: MessageMedia | null;
    participant: string | null;
    _data: unknown;
  } | null;
  mentions?: string[];
  forwarded?: boolean;
  edited: boolean;
  revoked: boolean;
  _data: unknown;
}

export interface ChatView {
  id: string;
  name: string | null;
  lid: string | null;
  isGroup: boolean;
  picture: string | null;
  timestamp: number;
  unreadCount: number;
  markedUnread: boolean;
  lastMessage: MessageView | LastMessageSummary | null;
}

export interface MessageQuery {
  limit: number;
  offset: number;
  sortOrder: "asc" | "desc";
  merge: boolean;
  downloadMedia: boolean;
  fromMe?: boolean;
  ack?: number;
  /** Unix seconds, inclusive. */
  timestampGte?: number;
  timestampLte?: number;
}

export type ChatSort = "lastMessageAt" | "name" | "id";

export interface ChatQuery {
  limit: number;
  offset: number;
  sortBy: ChatSort;
  sortOrder: "asc" | "desc";
  merge: boolean;
  /** Only these chats (normalized ids). */
  ids?: string[];
}

/** What the session manager knows beside the payload. */
export interface RecordExtra {
  /** The network's id of the message (else parsed from the payload's id). */
  networkId?: string;
  /** For edits and revocations: the network id (or API id) of the message they name. */
  targetId?: string | null;
  /** The content in the provider contract's shape: location and contact cards come from it. */
  content?: OutboundContent | null;
  /** The payload's `raw` is `content` whole and the document keeps it as the kept message ({@link MessageDoc.keeps}). */
  keep?: boolean;
}

export interface ReadModelOptions {
  retentionMs: number;
  /** How long an ack waits for its message to be stored (it may race the send that stores it). */
  pendingAckMs?: number;
}

export type Payload = Record<string, unknown>;
