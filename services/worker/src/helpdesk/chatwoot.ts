import { randomBytes } from "node:crypto";
import { guardedDispatcher, guardedRequest, type HelpdeskApp } from "@gw/platform";

/** A contact as Chatwoot's Application API shows it (the fields we read). */
export interface CwContact {
  id: number;
  name?: string | null;
  phone_number?: string | null;
  identifier?: string | null;
}
export interface CwConversation {
  id: number;
  inbox_id: number;
  status: "open" | "resolved" | "pending" | "snoozed";
}
export interface CwMessage {
  id: number;
  source_id?: string | null;
  message_type?: number | string;
}
export interface CwAttachment {
  filename: string;
  mimetype: string;
  bytes: Buffer;
}
export interface NewMessage {
  content: string;
  message_type: "incoming" | "outgoing";
  private?: boolean;
  source_id?: string;
  content_attributes?: Record<string, unknown>;
  attachment?: CwAttachment;
}

/** A Chatwoot answer other than 2xx: the relay decides whether trying again can help. */
export class ChatwootError extends Error {
  /** The answer's first 300 characters (a proxy's error page is no use in every log line). */
  readonly body: string;

  constructor(
    readonly status: number,
    body: string,
    what: string,
  ) {
    const short = body.length > 300 ? `${body.slice(0, 300)}…` : body;
    super(`chatwoot ${what}: HTTP ${status} ${short.replace(/\s+/g, " ")}`);
    this.body = short;
  }
  /**
   * 4xx other than 408/429 will answer the same however often it is asked (bad config, bad data) —
   * except Chatwoot's per-conversation flood guard (`422 Too many messages`, 200 a minute by default),
   * which passes with time.
   */
  get permanent(): boolean {
    if (this.status === 422 && this.body.includes("Too many messages")) return false;
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429;
  }
}

const agents = new Map<boolean, ReturnType<typeof guardedDispatcher>>();
const TIMEOUT_MS = 15_000;

/**
 * The few Application API calls the connector makes (docs/helpdesk.md), against `config.url`
 * through the URL guard (the help desk is a URL a user typed: no internal addresses unless the
 * deployment allows them, as for webhooks).
 */
export class ChatwootClient {
  private readonly base: string;
  private readonly agent: ReturnType<typeof guardedDispatcher>;

  constructor(
    private readonly app: HelpdeskApp,
    private readonly allowPrivate: boolean,
  ) {
    this.base = `${app.config.url.replace(/\/+$/, "")}/api/v1/accounts/${app.config.accountId}`;
    let agent = agents.get(allowPrivate);
    if (!agent) {
      agent = guardedDispatcher({ allowPrivate });
      agents.set(allowPrivate, agent);
    }
    this.agent = agent;
  }

  async searchContacts(q: string): Promise<CwContact[]> {
    const r = await this.call<{ payload: CwContact[] }>("GET", `/contacts/search?q=${encodeURIComponent(q)}`);
    return r.payload ?? [];
  }

  async createContact(body: { name: string; phone_number?: string; identifier: string }) {
    const r = await this.call<{ payload: { contact: CwContact; contact_inbox?: { source_id?: string } } }>(
      "POST",
      "/contacts",
      { inbox_id: this.app.config.inboxId, ...body },
    );
    return { contact: r.payload.contact, sourceId: r.payload.contact_inbox?.source_id ?? null };
  }

  async conversationsOf(contactId: number): Promise<CwConversation[]> {
    const r = await this.call<{ payload: CwConversation[] }>("GET", `/contacts/${contactId}/conversations`);
    return (r.payload ?? []).filter((c) => c.inbox_id === this.app.config.inboxId);
  }

  createConversation(contactId: number, sourceId: string | null): Promise<CwConversation> {
    return this.call("POST", "/conversations", {
      inbox_id: this.app.config.inboxId,
      contact_id: contactId,
      ...(sourceId ? { source_id: sourceId } : {}),
      status: "open",
    });
  }

  async reopen(conversationId: number): Promise<void> {
    await this.call("POST", `/conversations/${conversationId}/toggle_status`, { status: "open" });
  }

  /** The conversation's latest messages (a page of Chatwoot's, newest last). */
  async latestMessages(conversationId: number): Promise<CwMessage[]> {
    const r = await this.call<{ payload: CwMessage[] }>("GET", `/conversations/${conversationId}/messages`);
    return r.payload ?? [];
  }

  createMessage(conversationId: number, m: NewMessage): Promise<CwMessage> {
    const path = `/conversations/${conversationId}/messages`;
    if (!m.attachment) return this.call("POST", path, m);
    // Attachments go as multipart/form-data, the only way Chatwoot's API takes files.
    const { attachment, content_attributes, ...fields } = m;
    const form = new Multipart();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.field(k, String(v));
    if (content_attributes) form.field("content_attributes", JSON.stringify(content_attributes));
    form.file("attachments[]", attachment);
    return this.call("POST", path, form);
  }

  async deleteMessage(conversationId: number, messageId: number): Promise<void> {
    await this.call("DELETE", `/conversations/${conversationId}/messages/${messageId}`);
  }

  private async call<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { api_access_token: this.app.config.token, accept: "application/json" };
    let payload: string | Buffer | undefined;
    if (body instanceof Multipart) {
      headers["content-type"] = body.contentType;
      payload = body.done();
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await guardedRequest(
      this.base + path,
      { method, headers, body: payload ?? null },
      { allowPrivate: this.allowPrivate, timeoutMs: TIMEOUT_MS, dispatcher: this.agent, field: "config.url" },
    );
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300)
      throw new ChatwootError(res.statusCode, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : {}) as T;
  }
}

/** A multipart/form-data body built in memory (Chatwoot's attachments are bounded by our media limits). */
class Multipart {
  private readonly boundary = `----gw${randomBytes(12).toString("hex")}`;
  private readonly parts: Buffer[] = [];
  readonly contentType = `multipart/form-data; boundary=${this.boundary}`;

  field(name: string, value: string): void {
    this.parts.push(
      Buffer.from(`--${this.boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }

  file(name: string, f: CwAttachment): void {
    const filename = f.filename.replace(/["\r\n]/g, "_");
    this.parts.push(
      Buffer.from(
        `--${this.boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: ${f.mimetype}\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from("\r\n"),
    );
  }

  done(): Buffer {
    return Buffer.concat([...this.parts, Buffer.from(`--${this.boundary}--\r\n`)]);
  }
}
