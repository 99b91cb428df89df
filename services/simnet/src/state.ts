// simnet's whole memory: accounts, devices, connections, groups, messages, faults and counters.

import type { WebSocket } from "ws";
import type { AccountAddressing } from "./addressing-rules.ts";
import type { ResolvedOptions } from "./config.ts";
import { SimnetError } from "./errors.ts";
import { lidOf, ninthDigitVariant, phoneDigits } from "./ids.ts";
import type { MessageContent, Peer, PresenceState, ServerFrame, SimCapping, SimMe, SimTimelock } from "./protocol.ts";

export interface PendingFrame {
  frame: ServerFrame;
  /** Called when the frame reaches an open connection (delivery receipts). */
  onDelivered?: () => void;
}

export interface Device {
  deviceId: string;
  secret: string;
  phone: string;
  /** The instance that paired it (the last one to connect with it). */
  instanceId: string | null;
  deviceName: string;
  browserName: string;
  createdAt: number;
  /** Its open connection, if any. */
  connectionId: string | null;
  /** Frames for it while it is offline, delivered in order when it connects. */
  pending: PendingFrame[];
}

export interface Receipt {
  delivered: boolean;
  read: boolean;
  played: boolean;
}

export interface StoredMessage {
  seq: number;
  id: string;
  senderPhone: string;
  /** `device`: sent by a linked device (an instance); `phone`: by the phone (control API). */
  origin: "device" | "phone";
  deviceId: string | null;
  instanceId: string | null;
  /** `to` as the sender gave it, and the chat it resolved to from the sender's side. */
  to: string;
  chatId: string;
  groupId: string | null;
  recipientPhone: string | null;
  timestamp: number;
  /** Milliseconds, for ordering in tests. */
  at: number;
  content: MessageContent;
  quotedId?: string;
  mentions?: string[];
  forwarded?: boolean;
  /** One per recipient account. */
  receipts: Map<string, Receipt>;
  /** Index in ACK_STATUSES of the last ack emitted to the sender; -1 before any. */
  level: number;
  acks: { status: string; timestamp: number; at: number }[];
  timer: NodeJS.Timeout | null;
  /** Accepted, then refused by the network (addressing-rules.ts): the error its `failed` ack carried. */
  failed?: { code: number; message: string };
}

export interface PresenceEntry {
  seq: number;
  at: number;
  timestamp: number;
  to: string | null;
  state: PresenceState;
  origin: "device" | "phone";
  deviceId: string | null;
  instanceId: string | null;
}

export interface Account {
  phone: string;
  lid: string;
  pushName: string;
  hidePhone: boolean;
  revealed: boolean;
  /** Read what arrives this many ack steps after delivery (0: never on its own). */
  autoRead: number;
  createdAt: number;
  devices: Set<string>;
  inbox: StoredMessage[];
  sent: StoredMessage[];
  presenceLog: PresenceEntry[];
  /** Peers this account has a one-to-one conversation with. */
  conversations: Set<string>;
  /** How its one-to-one conversations are addressed (addressing-rules.ts). */
  addressing: AccountAddressing;
  /** Refuses first contact: numbers it never wrote to get error 463. */
  refusesFirstContact: boolean;
  /** Peers it sent a one-to-one message to (who may then reach it despite `refusesFirstContact`). */
  wroteTo: Set<string>;
  usedQuota: number;
  restrictions: { capping: Partial<SimCapping>; timelock: Partial<SimTimelock> };
  /** The profile picture (base64 + mimetype), or null when none is visible. */
  picture: SimPicture | null;
}

export interface SimPicture {
  data: string;
  mimetype: string;
}

export interface Group {
  id: string;
  subject: string;
  participants: Set<string>;
  admins: Set<string>;
  onlyAdminsCanSend: boolean;
  creation: number;
  picture?: SimPicture | null;
}

export interface Connection {
  id: string;
  ws: WebSocket;
  state: "hello" | "pairing" | "open" | "closed";
  instanceId: string | null;
  pod: string;
  deviceName: string;
  browserName: string;
  phone: string | null;
  deviceId: string | null;
  since: number;
  qr: string | null;
  qrShown: number;
  qrTimer: NodeJS.Timeout | null;
  helloTimer: NodeJS.Timeout | null;
  passkey: { challenge: string; phone: string | null; verified: boolean; confirmation: string | null } | null;
}

export interface PairingCode {
  code: string;
  phone: string;
  connectionId: string;
  expiresAt: number;
}

export const PAIRING_WINDOW_MS = 10 * 60_000;
const CYCLE_SECONDS = 30 * 24 * 3600;

function newStats() {
  return {
    /** WebSocket upgrades accepted. */
    connectionsAccepted: 0,
    /** `open` frames sent (authenticated connections, after pairing or with creds). */
    connectionsOpened: 0,
    /** Times a device connected while another socket of the same device was open. */
    conflicts: 0,
    conflictLog: [] as { deviceId: string; instanceId: string | null; at: number }[],
    /** Times an instance connected while another socket of the same instance id was open. */
    instanceOverlaps: 0,
    /** Upgrades refused during an outage. */
    refusedUpgrades: 0,
    messagesSent: 0,
  };
}

export class SimnetState {
  readonly accounts = new Map<string, Account>();
  readonly accountsByLid = new Map<string, Account>();
  readonly devices = new Map<string, Device>();
  /** Devices removed (logged out): their credentials now get `logged_out`, not `bad_credentials`. */
  readonly removedDevices = new Set<string>();
  readonly connections = new Map<string, Connection>();
  readonly groups = new Map<string, Group>();
  /** Messages by `<senderPhone>|<id>` (idempotent sends) and by id (reaction/edit targets). */
  readonly messagesByKey = new Map<string, StoredMessage>();
  readonly messagesById = new Map<string, StoredMessage>();
  readonly pairingCodes = new Map<string, PairingCode>();
  readonly pairingAttempts = new Map<string, number[]>();
  stats = newStats();
  /**
   * `rateLimitSends`: how many of the next sends the network refuses with `rate_overlimit`, of
   * any account; `rateLimitedPhones`: the same, counted per sending account.
   */
  faults = {
    outageUntil: 0,
    outageTimer: null as NodeJS.Timeout | null,
    slowMs: 0,
    /** A device's session opens this long after its hello: a slow handshake, for handover tests. */
    openDelayMs: 0,
    rateLimitSends: 0,
    rateLimitedPhones: new Map<string, number>(),
    /**
     * Instance ids (the `?instance=` of the upgrade) the network cannot be reached from, until when
     * (ms): the connection is reset before any answer, as a DNS or routing failure looks.
     */
    unreachable: new Map<string, number>(),
  };
  /** The feature areas' own memory (labels, channels, …): one object per area, made on first use. */
  private readonly areas = new Map<string, unknown>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private seqCounter = 0;
  private connCounter = 0;

  constructor(readonly opts: ResolvedOptions) {}

  nextSeq(): number {
    return ++this.seqCounter;
  }
  nextConnectionId(): string {
    return `c${++this.connCounter}`;
  }

  // --- timers --------------------------------------------------------------------------------

  later(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }
  cancel(t: NodeJS.Timeout | null): void {
    if (!t) return;
    clearTimeout(t);
    this.timers.delete(t);
  }
  clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // --- accounts ------------------------------------------------------------------------------

  /** The account of a phone as typed: exact match first, then the other Brazilian ninth-digit form. */
  findAccount(raw: string): Account | undefined {
    const digits = phoneDigits(raw);
    if (!digits) return undefined;
    const exact = this.accounts.get(digits);
    if (exact) return exact;
    const variant = ninthDigitVariant(digits);
    return variant ? this.accounts.get(variant) : undefined;
  }

  requireAccount(raw: string): Account {
    const acc = this.findAccount(raw);
    if (!acc) throw new SimnetError("not_found", `no account for ${raw}`);
    return acc;
  }

  /** The existing account (ninth digit tolerant) or a new one registered exactly as given. */
  ensureAccount(
    raw: string,
    init: {
      pushName?: string;
      hidePhone?: boolean;
      autoRead?: number;
      addressing?: AccountAddressing;
      refusesFirstContact?: boolean;
    } = {},
  ): Account {
    const existing = this.findAccount(raw);
    if (existing) return existing;
    const phone = phoneDigits(raw);
    if (!phone) throw new SimnetError("validation_error", `not a phone number: ${raw}`);
    const acc: Account = {
      phone,
      lid: lidOf(phone),
      pushName: init.pushName ?? `Sim ${phone.slice(-4)}`,
      hidePhone: init.hidePhone ?? false,
      picture: null,
      revealed: false,
      autoRead: init.autoRead ?? 0,
      createdAt: Date.now(),
      devices: new Set(),
      inbox: [],
      sent: [],
      presenceLog: [],
      conversations: new Set(),
      usedQuota: 0,
      restrictions: { capping: {}, timelock: {} },
      addressing: init.addressing ?? "any",
      refusesFirstContact: init.refusesFirstContact ?? false,
      wroteTo: new Set(),
    };
    this.accounts.set(phone, acc);
    this.accountsByLid.set(acc.lid, acc);
    return acc;
  }

  me(acc: Account): SimMe {
    return { phone: acc.phone, lid: acc.lid, pushName: acc.pushName };
  }

  /** Whether `viewer` sees `acc`'s number. */
  phoneVisible(acc: Account, viewerPhone: string | null): boolean {
    return !acc.hidePhone || acc.revealed || viewerPhone === acc.phone;
  }

  /** `acc` as `viewer` sees it. */
  peer(acc: Account, viewerPhone: string | null): Peer {
    return this.phoneVisible(acc, viewerPhone)
      ? { id: `${acc.phone}@c.us`, phone: acc.phone, lid: acc.lid, pushName: acc.pushName }
      : { id: acc.lid, phone: null, lid: acc.lid, pushName: acc.pushName };
  }

  capping(acc: Account): SimCapping {
    const createdS = Math.floor(acc.createdAt / 1000);
    const nowS = Math.floor(Date.now() / 1000);
    const cycleStart = createdS + Math.floor((nowS - createdS) / CYCLE_SECONDS) * CYCLE_SECONDS;
    return {
      cappingStatus: "NONE",
      cycleStart,
      cycleEnd: cycleStart + CYCLE_SECONDS,
      mvStatus: "NOT_ACTIVE",
      oteStatus: "NOT_ELIGIBLE",
      totalQuota: 1000,
      usedQuota: acc.usedQuota,
      ...acc.restrictions.capping,
    };
  }

  timelock(acc: Account): SimTimelock {
    return { enforcementType: "NONE", isActive: false, timeEnforcementEnds: 0, ...acc.restrictions.timelock };
  }

  /**
   * Keeps the newest `messageLimit` entries. Evicts with `shift()`, which V8 does in constant
   * time on arrays like these; `splice(0, 1)` moved all 10,000 entries on every message once a
   * phone's list was full (40 µs each, twice per message sent).
   */
  push<T>(list: T[], item: T, onEvict?: (old: T) => void): void {
    list.push(item);
    while (list.length > this.opts.messageLimit) {
      const evicted = list.shift() as T;
      onEvict?.(evicted);
    }
  }

  // --- devices and connections ---------------------------------------------------------------

  openConnectionOf(device: Device): Connection | undefined {
    if (!device.connectionId) return undefined;
    const conn = this.connections.get(device.connectionId);
    // A socket already closing counts as offline: what is meant for it waits for the next one.
    return conn && conn.state === "open" && conn.ws.readyState === conn.ws.OPEN ? conn : undefined;
  }

  sendFrame(conn: Connection, frame: ServerFrame): void {
    if (conn.state === "closed" || conn.ws.readyState !== conn.ws.OPEN) return;
    conn.ws.send(JSON.stringify(frame));
  }

  /** Now if the device is connected, else when it next connects. */
  deliverToDevice(device: Device, frame: ServerFrame, onDelivered?: () => void): void {
    const conn = this.openConnectionOf(device);
    if (conn) {
      this.sendFrame(conn, frame);
      onDelivered?.();
      return;
    }
    this.push(device.pending, onDelivered ? { frame, onDelivered } : { frame });
  }

  flushPending(device: Device, conn: Connection): void {
    const pending = device.pending.splice(0);
    for (const p of pending) {
      this.sendFrame(conn, p.frame);
      p.onDelivered?.();
    }
  }

  /** Removes a device: its credentials stop working (`logged_out`). Its connection is left to the caller. */
  removeDevice(device: Device): void {
    this.devices.delete(device.deviceId);
    this.removedDevices.add(device.deviceId);
    this.accounts.get(device.phone)?.devices.delete(device.deviceId);
    device.pending.length = 0;
  }

  hasOpenDevice(acc: Account): boolean {
    for (const id of acc.devices) {
      const d = this.devices.get(id);
      if (d && this.openConnectionOf(d)) return true;
    }
    return false;
  }

  // --- feature areas ---------------------------------------------------------------------------

  /** An area's memory (areas.ts): made by `init` on first use, forgotten by a reset. */
  area<T>(name: string, init: () => T): T {
    let value = this.areas.get(name) as T | undefined;
    if (value === undefined) {
      value = init();
      this.areas.set(name, value);
    }
    return value;
  }

  /**
   * A spec 6.2 event for every device of `acc` (`{type: "event", kind, payload}`), now or when each
   * connects: what the sim provider passes on as is (payload already as that account sees it).
   */
  deliverEvent(acc: Account, kind: string, payload: Record<string, unknown>): void {
    for (const id of acc.devices) {
      const device = this.devices.get(id);
      if (device) this.deliverToDevice(device, { type: "event", kind, payload });
    }
  }

  // --- reset ---------------------------------------------------------------------------------

  /** Forgets everything but the connections, which the caller terminates. */
  clear(): void {
    this.clearTimers();
    this.accounts.clear();
    this.accountsByLid.clear();
    this.devices.clear();
    this.removedDevices.clear();
    this.groups.clear();
    this.areas.clear();
    this.messagesByKey.clear();
    this.messagesById.clear();
    this.pairingCodes.clear();
    this.pairingAttempts.clear();
    this.stats = newStats();
    this.faults = {
      outageUntil: 0,
      outageTimer: null,
      slowMs: 0,
      openDelayMs: 0,
      rateLimitSends: 0,
      rateLimitedPhones: new Map(),
      unreachable: new Map(),
    };
  }
}
