// What happens in the help desk, whoever asks (the Application API or the control API): messages
// created, deleted and updated, conversation status changes with their activity messages, and the
// webhook events each of these sends to the inbox's `webhook_url`.
import { randomBytes } from "node:crypto";
import { fileType } from "./attachments.ts";
import { couldNotCreate } from "./errors.ts";
import type { Conversation, ConversationStatus, Message, MessageStatus, Obj, User } from "./model.ts";
import type { ChatwootMockState } from "./state.ts";
import { conversationWebhook, messageWebhook } from "./webhook-data.ts";
import type { WebhookSender } from "./webhooks.ts";

export interface UploadedFile {
  filename: string;
  mimetype: string;
  data: Buffer;
}

export interface MessageInput {
  content: string | null;
  /** 0 incoming, 1 outgoing, 2 activity, 3 template. */
  messageType: number;
  contentType: string;
  private: boolean;
  sourceId: string | null;
  contentAttributes: Obj;
  files: UploadedFile[];
}

const STATUS_ACTIVITY: Record<ConversationStatus, string> = {
  open: "Conversation was reopened by %s",
  resolved: "Conversation was marked resolved by %s",
  pending: "Conversation was marked as pending by %s",
  snoozed: "Conversation was snoozed by %s",
};

export class Desk {
  constructor(
    readonly state: ChatwootMockState,
    readonly hooks: WebhookSender,
  ) {
    hooks.onFailure = (id, error) => {
      const m = state.messages.get(id);
      if (m && m.status !== "failed") this.updateStatus(m, "failed", error);
    };
  }

  /**
   * A message as Messages::MessageBuilder makes it: incoming ones are the contact's, the others the
   * acting user's; an incoming one reopens a resolved conversation. Throws Chatwoot's 422s.
   */
  createMessage(conv: Conversation, input: MessageInput, actor: User | null): Message {
    const { state } = this;
    const minuteAgo = Date.now() - 60_000;
    const thread = state.messagesOf(conv);
    let recent = 0;
    while (recent < thread.length && thread[thread.length - 1 - recent]!.createdAt.getTime() >= minuteAgo) recent++;
    const limit = state.opts.messagesPerMinute;
    if (input.messageType !== 2 && limit > 0 && recent >= limit) {
      throw couldNotCreate("Validation failed: Too many messages");
    }
    if ((input.content?.length ?? 0) > 150_000) {
      throw couldNotCreate("Validation failed: Content is too long (maximum is 150000 characters)");
    }
    if (input.files.length > 15) throw couldNotCreate("Validation failed: Attachments exceeded maximum allowed");
    const now = new Date();
    const id = state.next("message");
    const incoming = input.messageType === 0;
    const m: Message = {
      id,
      accountId: conv.accountId,
      inboxId: conv.inboxId,
      conversationKey: conv.key,
      content: input.content,
      messageType: input.messageType,
      contentType: input.contentType,
      contentAttributes: this.withReplyTo(conv, input.contentAttributes),
      additionalAttributes: {},
      private: input.private,
      status: "sent",
      sourceId: input.sourceId,
      sender: incoming ? { type: "Contact", id: conv.contactId } : actor ? { type: "User", id: actor.id } : null,
      createdAt: now,
      updatedAt: now,
      attachments: input.files.map((f) => ({
        id: state.next("attachment"),
        messageId: id,
        accountId: conv.accountId,
        fileType: fileType(f.mimetype),
        filename: f.filename,
        mimetype: f.mimetype,
        data: f.data,
        signedId: randomBytes(24).toString("base64url"),
      })),
    };
    state.addMessage(m);
    for (const a of m.attachments) state.blobs.set(a.signedId, a);
    conv.lastActivityAt = now;
    conv.updatedAt = now;
    if (incoming) {
      conv.waitingSince ??= now;
      const contact = state.contacts.get(conv.contactId);
      if (contact) contact.lastActivityAt = now;
    } else if (input.messageType === 1 && !input.private && actor) {
      conv.waitingSince = null;
      conv.firstReplyCreatedAt ??= now;
    }
    // An incoming message reopens a resolved conversation before its own event goes out; the
    // activity message ("… reopened by …") comes after, as Chatwoot's job writes it later.
    const reopened = incoming && this.changeStatus(conv, "open", ["resolved"]);
    // Activity messages are not sent to webhooks (Message#webhook_sendable?); private notes are.
    if (input.messageType !== 2) {
      this.hooks.send(state.inboxes.get(conv.inboxId)!, messageWebhook(state, m, "message_created"));
    }
    if (reopened) this.statusActivity(conv, actor);
    return m;
  }

  /** Messages::InReplyToMessageBuilder: a reply names the quoted message by id and by its source id. */
  private withReplyTo(conv: Conversation, attrs: Obj): Obj {
    const out = { ...attrs };
    const byId = attrs.in_reply_to;
    const byExternal = attrs.in_reply_to_external_id;
    const inConv = this.state.messagesOf(conv);
    const quoted =
      byId !== undefined && byId !== null && byId !== ""
        ? inConv.find((m) => String(m.id) === String(byId))
        : typeof byExternal === "string" && byExternal
          ? inConv.find((m) => m.sourceId === byExternal)
          : undefined;
    if (quoted) {
      out.in_reply_to = quoted.id;
      out.in_reply_to_external_id = quoted.sourceId;
    }
    return out;
  }

  /** A status change, `conversation_status_changed`, then its activity message ("… by <agent>"). */
  setStatus(conv: Conversation, status: ConversationStatus, actor: User | null): void {
    if (this.changeStatus(conv, status)) this.statusActivity(conv, actor);
  }

  /** Changes the status (if it is one of `from`) and sends `conversation_status_changed`; false if unchanged. */
  private changeStatus(conv: Conversation, status: ConversationStatus, from?: ConversationStatus[]): boolean {
    const previous = conv.status;
    if (previous === status || (from && !from.includes(previous))) return false;
    conv.status = status;
    conv.updatedAt = new Date();
    this.hooks.send(this.state.inboxes.get(conv.inboxId)!, {
      ...conversationWebhook(this.state, conv),
      event: "conversation_status_changed",
      changed_attributes: [{ status: { previous_value: previous, current_value: status } }],
    });
    return true;
  }

  private statusActivity(conv: Conversation, actor: User | null): void {
    if (actor) this.createMessage(conv, activity(STATUS_ACTIVITY[conv.status].replace("%s", actor.name)), null);
  }

  /** Chatwoot keeps a deleted message: its content replaced, its attributes `{deleted: true}`, attachments gone. */
  deleteMessage(m: Message): void {
    m.content = "This message was deleted";
    m.contentType = "text";
    m.contentAttributes = { deleted: true };
    for (const a of m.attachments) this.state.blobs.delete(a.signedId);
    m.attachments = [];
    this.updated(m);
  }

  /** Messages::StatusUpdateService: a known status, never from `read` back to `delivered`. */
  updateStatus(m: Message, status: MessageStatus, externalError?: string | null): boolean {
    if (m.status === "read" && status === "delivered") return false;
    m.status = status;
    const { external_error: _e, ...rest } = m.contentAttributes;
    m.contentAttributes = status === "failed" ? { ...rest, external_error: externalError ?? null } : rest;
    this.updated(m);
    return true;
  }

  private updated(m: Message): void {
    m.updatedAt = new Date();
    if (m.messageType === 2) return;
    this.hooks.send(this.state.inboxes.get(m.inboxId)!, messageWebhook(this.state, m, "message_updated"));
  }
}

export function activity(content: string): MessageInput {
  return {
    content,
    messageType: 2,
    contentType: "text",
    private: false,
    sourceId: null,
    contentAttributes: {},
    files: [],
  };
}
