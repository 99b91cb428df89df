// simnet's whole memory: accounts, devices, connections, groups, messages, faults and counters
// (the records' shapes are in model.ts, the counters and faults in counters.ts), with the lookups
// and the delivery to devices every part of the network shares.

import type { AccountAddressing } from "../addressing-rules.ts";
import type { ResolvedOptions } from "../config.ts";
import { SimnetError } from "../errors.ts";
import { lidOf, ninthDigitVariant, phoneDigits } from "../ids.ts";
import type { Peer, ServerFrame, SimCapping, SimMe, SimTimelock } from "../wire/protocol.ts";
import { newFaults, newStats } from "./counters.ts";
import type { Account, Connection, Device, Group, PairingCode, StoredMessage } from "./model.ts";

const CYCLE_SECONDS = 30 * 24 * 3600;

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
  /** What the control API's `/simnet/stats` counts (counters.ts). */
  stats = newStats();
  /** The faults a test injected (counters.ts says what each one does). */
  faults = newFaults();
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

  /** An area's memory (areas/index.ts): made by `init` on first use, forgotten by a reset. */
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
    this.faults = newFaults();
  }
}
