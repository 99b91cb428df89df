// The mock help desk's whole memory: accounts, agents and their tokens, API inboxes, contacts,
// conversations, messages with their attachment bytes, webhook deliveries and request counters.
import { randomBytes, randomUUID } from "node:crypto";
import type { ResolvedOptions } from "./config.ts";
import type {
  Account,
  Attachment,
  Contact,
  ContactInbox,
  Conversation,
  DeliveryRecord,
  Inbox,
  Message,
  User,
} from "./model.ts";

const token = () => randomBytes(18).toString("base64url").slice(0, 24);

export class ChatwootMockState {
  readonly accounts = new Map<number, Account>();
  readonly users = new Map<number, User>();
  readonly inboxes = new Map<number, Inbox>();
  readonly contacts = new Map<number, Contact>();
  readonly contactInboxes = new Map<number, ContactInbox>();
  readonly conversations = new Map<number, Conversation>();
  readonly messages = new Map<number, Message>();
  /** Each conversation's messages in creation order (by conversation key). */
  private readonly threads = new Map<number, Message[]>();
  /** Signed ids of attachment URLs → the attachment. */
  readonly blobs = new Map<string, Attachment>();
  readonly deliveries: DeliveryRecord[] = [];
  /** Requests by `METHOD route`, refused ones included. */
  readonly requestCounts = new Map<string, number>();
  /** Until when (epoch ms) every Application API request answers 503. */
  outageUntil = 0;
  /** How many of the next message creations are made but answered 502 (their answer "lost"). */
  loseAnswers = 0;
  /** The listening address, once known (attachment URLs). */
  baseUrl = "";
  private readonly seqs = new Map<string, number>();

  constructor(readonly opts: ResolvedOptions) {}

  next(kind: string): number {
    const n = (this.seqs.get(kind) ?? 0) + 1;
    this.seqs.set(kind, n);
    return n;
  }

  publicUrl(): string {
    return (this.opts.publicUrl ?? this.baseUrl).replace(/\/$/, "");
  }

  randomToken(): string {
    return token();
  }

  userByToken(t: string): User | undefined {
    for (const u of this.users.values()) if (u.token === t) return u;
    return undefined;
  }

  /** An agent of the account by name, made on first use (control API senders). */
  agent(accountId: number, name: string): User {
    for (const u of this.users.values()) if (u.name === name && u.accountIds.has(accountId)) return u;
    return this.addUser(accountId, name, null);
  }

  addUser(accountId: number, name: string, userToken: string | null): User {
    const id = this.next("user");
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, ".") || "agent";
    const u: User = {
      id,
      name,
      email: `${slug}.${id}@agents.mock`,
      accountIds: new Set([accountId]),
      token: userToken,
    };
    this.users.set(id, u);
    return u;
  }

  /** An account with one API inbox and an agent holding an access token. */
  setup(o: {
    accountName?: string | undefined;
    inboxName?: string | undefined;
    userName?: string | undefined;
    token?: string | undefined;
    webhookUrl?: string | null | undefined;
    lockToSingleConversation?: boolean | undefined;
  }): { account: Account; inbox: Inbox; user: User } {
    const account: Account = { id: this.next("account"), name: o.accountName ?? "Mock Help Desk", nextDisplayId: 1 };
    this.accounts.set(account.id, account);
    const now = new Date();
    const inbox: Inbox = {
      id: this.next("inbox"),
      accountId: account.id,
      channelId: this.next("channel"),
      name: o.inboxName ?? "WhatsApp Gateway",
      webhookUrl: o.webhookUrl ?? null,
      identifier: token(),
      hmacToken: token(),
      lockToSingleConversation: o.lockToSingleConversation ?? false,
      createdAt: now,
      updatedAt: now,
    };
    this.inboxes.set(inbox.id, inbox);
    const user = this.addUser(account.id, o.userName ?? "Gateway Integration", o.token ?? token());
    return { account, inbox, user };
  }

  contactInbox(contactId: number, inboxId: number, sourceId?: string): ContactInbox {
    for (const ci of this.contactInboxes.values()) {
      if (ci.contactId === contactId && ci.inboxId === inboxId && ci.sourceId === sourceId) return ci;
    }
    if (sourceId !== undefined) {
      // Another contact holding this source id in the inbox loses it (ContactInboxBuilder on RecordNotUnique).
      for (const ci of this.contactInboxes.values()) {
        if (ci.inboxId === inboxId && ci.sourceId === sourceId) ci.sourceId = randomUUID();
      }
    }
    const now = new Date();
    const ci: ContactInbox = {
      id: this.next("contact_inbox"),
      contactId,
      inboxId,
      // An API inbox's contact gets a UUID when the caller names none (ContactInboxBuilder).
      sourceId: sourceId ?? randomUUID(),
      pubsubToken: token(),
      createdAt: now,
      updatedAt: now,
    };
    this.contactInboxes.set(ci.id, ci);
    return ci;
  }

  conversation(accountId: number, displayId: number): Conversation | undefined {
    for (const c of this.conversations.values()) if (c.accountId === accountId && c.displayId === displayId) return c;
    return undefined;
  }

  addMessage(m: Message): void {
    this.messages.set(m.id, m);
    const thread = this.threads.get(m.conversationKey);
    if (thread) thread.push(m);
    else this.threads.set(m.conversationKey, [m]);
  }

  /** The conversation's messages, oldest first (not a copy: do not change it). */
  messagesOf(c: Conversation): readonly Message[] {
    return this.threads.get(c.key) ?? [];
  }

  reset(): void {
    for (const m of [this.accounts, this.users, this.inboxes, this.contacts, this.contactInboxes]) m.clear();
    for (const m of [this.conversations, this.messages, this.threads, this.blobs, this.requestCounts, this.seqs])
      m.clear();
    this.deliveries.length = 0;
    this.outageUntil = 0;
    this.loseAnswers = 0;
  }
}
