// The mock operator's whole memory: business numbers, their customers, media, templates,
// uploads, what was sent, what was asked of it and what it delivered.
import { randomBytes } from "node:crypto";
import type { ResolvedOptions } from "./config.ts";

export interface BusinessNumber {
  phoneNumberId: string;
  wabaId: string;
  /** Digits. */
  displayPhoneNumber: string;
  verifiedName: string;
  accessToken: string;
  appSecret: string;
  appId: string;
  webhookUrl: string | null;
  qualityRating: string;
  messagingLimitTier: string;
  nameStatus: string;
  throughput: string;
  /** The token answers 190/463 (expired) until changed. */
  tokenExpired: boolean;
  /** Outside the 24 h window: `async` (200, then a failed status 131047) or `sync` (400 131047). */
  windowMode: "async" | "sync";
  /** Messages to one customer within 6 s before 131056; 0: no limit. */
  pairRate: number;
  profile: Record<string, unknown>;
  /** Customers by digits. */
  users: Map<string, Customer>;
}

export interface Customer {
  waId: string;
  onWhatsApp: boolean;
  autoRead: boolean;
  /** Status webhooks of our messages to this customer are sent (false: only through the control API). */
  autoStatus: boolean;
  name: string;
  username: string | null;
  userId: string | null;
  hidePhone: boolean;
  /** Unix s of the customer's last message (the 24 h window), 0 if never. */
  lastInbound: number;
  /** Inbound message ids (typing and read need one). */
  inbound: Set<string>;
  recentSends: number[];
}

export interface StoredMedia {
  id: string;
  phoneNumberId: string;
  data: Buffer;
  mimetype: string;
  sha256: string;
  filename?: string;
}

export interface Template {
  id: string;
  wabaId: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: Record<string, unknown>[];
  parameter_format: string;
  quality_score: { score: string; date: number } | null;
  rejected_reason: string;
  createdSeq: number;
}

export interface OutboundMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  statuses: { status: string; timestamp: number }[];
  at: number;
}

export interface RequestRecord {
  seq: number;
  phoneNumberId: string | null;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  at: number;
}

export interface DeliveryRecord {
  seq: number;
  url: string;
  field: string;
  attempt: number;
  status: number | null;
  error: string | null;
  at: number;
  body: string;
}

export interface InjectedError {
  phoneNumberId: string;
  op: string;
  /** The operator's code; absent with `body` (a raw answer that is not the operator's JSON). */
  code?: number | undefined;
  body?: string | undefined;
  contentType?: string;
  status?: number;
  subcode?: number;
  title?: string;
  details?: string;
  count: number;
}

export class CloudMockState {
  readonly numbers = new Map<string, BusinessNumber>();
  readonly media = new Map<string, StoredMedia>();
  /** Download tokens of media URLs → media id and expiry. */
  readonly downloads = new Map<string, { mediaId: string; until: number }>();
  readonly templates = new Map<string, Template>();
  readonly uploads = new Map<string, { appId: string; length: number; type: string; data: Buffer | null }>();
  /** Upload handles → the bytes (profile pictures). */
  readonly handles = new Map<string, { data: Buffer; type: string }>();
  readonly outbox = new Map<string, OutboundMessage>();
  readonly requests: RequestRecord[] = [];
  readonly deliveries: DeliveryRecord[] = [];
  readonly errors: InjectedError[] = [];
  private seq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The listening address, once known (media and picture URLs). */
  baseUrl = "";

  constructor(readonly opts: ResolvedOptions) {}

  next(): number {
    return ++this.seq;
  }

  later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  publicUrl(): string {
    return (this.opts.publicUrl ?? this.baseUrl).replace(/\/$/, "");
  }

  /** The customer `waId` of a number, made on first sight (on WhatsApp, reads what it gets). */
  customer(n: BusinessNumber, waId: string): Customer {
    let c = n.users.get(waId);
    if (!c) {
      c = {
        waId,
        onWhatsApp: true,
        autoRead: true,
        autoStatus: true,
        name: `Cliente ${waId.slice(-4)}`,
        username: null,
        userId: null,
        hidePhone: false,
        lastInbound: 0,
        inbound: new Set(),
        recentSends: [],
      };
      n.users.set(waId, c);
    }
    return c;
  }

  /**
   * The customer a send's `to` reaches: as given, or — a Brazilian mobile number typed with the
   * ninth digit when registered without it, or the other way round — the registered one, as the
   * operator resolves it (its answer's `wa_id` is the registered form, reference §1.3).
   */
  recipient(n: BusinessNumber, to: string): Customer {
    if (n.users.has(to)) return n.users.get(to)!;
    const other = /^55\d{2}9[6-9]\d{7}$/.test(to)
      ? `${to.slice(0, 4)}${to.slice(5)}`
      : /^55\d{2}[6-9]\d{7}$/.test(to)
        ? `${to.slice(0, 4)}9${to.slice(4)}`
        : null;
    return (other && n.users.get(other)) || this.customer(n, to);
  }

  customerByUserId(n: BusinessNumber, userId: string): Customer | undefined {
    for (const c of n.users.values()) if (c.userId === userId) return c;
    return undefined;
  }

  /** The next injected error for `op` of a number, consumed. */
  takeError(phoneNumberId: string, op: string): InjectedError | null {
    const i = this.errors.findIndex((e) => e.phoneNumberId === phoneNumberId && (e.op === op || e.op === "any"));
    if (i < 0) return null;
    const e = this.errors[i]!;
    if (--e.count <= 0) this.errors.splice(i, 1);
    return e;
  }

  wamid(): string {
    // The operator's ids: `wamid.` and base64 (here of random bytes, `+`/`/` included on purpose).
    return `wamid.${randomBytes(30).toString("base64")}`;
  }

  reset(): void {
    this.clearTimers();
    for (const m of [
      this.numbers,
      this.media,
      this.downloads,
      this.templates,
      this.uploads,
      this.handles,
      this.outbox,
    ]) {
      m.clear();
    }
    this.requests.length = 0;
    this.deliveries.length = 0;
    this.errors.length = 0;
  }
}
