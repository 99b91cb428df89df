// The help desk's records, as the mock keeps them (camelCased; views.ts and message-views.ts render
// them in Chatwoot's shapes).

export type Obj = Record<string, unknown>;
export type ConversationStatus = "open" | "resolved" | "pending" | "snoozed";
export const STATUSES: readonly ConversationStatus[] = ["open", "resolved", "pending", "snoozed"];
/** Chatwoot's `message_type` enum: the API lists the integer, webhooks the name. */
export const MESSAGE_TYPES = ["incoming", "outgoing", "activity", "template"] as const;
export type MessageStatus = "sent" | "delivered" | "read" | "failed";

export interface Account {
  id: number;
  name: string;
  /** The next conversation `display_id` (per account, as Chatwoot numbers them). */
  nextDisplayId: number;
}

export interface User {
  id: number;
  name: string;
  email: string;
  accountIds: Set<number>;
  token: string | null;
}

export interface Inbox {
  id: number;
  accountId: number;
  /** The `Channel::Api` row's id. */
  channelId: number;
  name: string;
  webhookUrl: string | null;
  identifier: string;
  hmacToken: string;
  lockToSingleConversation: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface Contact {
  id: number;
  accountId: number;
  name: string;
  email: string | null;
  phoneNumber: string | null;
  identifier: string | null;
  avatarUrl: string | null;
  additionalAttributes: Obj;
  customAttributes: Obj;
  blocked: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastActivityAt: Date | null;
}

export interface ContactInbox {
  id: number;
  contactId: number;
  inboxId: number;
  sourceId: string;
  pubsubToken: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface Conversation {
  /** Internal key; the API and webhooks show `displayId` as `id`. */
  key: number;
  displayId: number;
  accountId: number;
  inboxId: number;
  contactId: number;
  contactInboxId: number;
  uuid: string;
  status: ConversationStatus;
  additionalAttributes: Obj;
  customAttributes: Obj;
  assigneeId: number | null;
  createdAt: Date;
  updatedAt: Date;
  lastActivityAt: Date;
  agentLastSeenAt: Date | null;
  firstReplyCreatedAt: Date | null;
  waitingSince: Date | null;
}

export interface Attachment {
  id: number;
  messageId: number;
  accountId: number;
  fileType: "image" | "audio" | "video" | "file";
  filename: string;
  mimetype: string;
  data: Buffer;
  /** The blob's signed id in its `data_url` (Active Storage's redirect link). */
  signedId: string;
}

export interface Message {
  id: number;
  accountId: number;
  inboxId: number;
  conversationKey: number;
  content: string | null;
  messageType: number;
  contentType: string;
  contentAttributes: Obj;
  additionalAttributes: Obj;
  private: boolean;
  status: MessageStatus;
  sourceId: string | null;
  sender: { type: "Contact" | "User"; id: number } | null;
  createdAt: Date;
  updatedAt: Date;
  attachments: Attachment[];
}

export interface DeliveryRecord {
  seq: number;
  url: string;
  event: string;
  messageId: number | null;
  status: number | null;
  error: string | null;
  at: number;
  body: string;
}
