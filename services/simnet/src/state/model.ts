// The records simnet keeps: accounts, their devices and connections, groups, messages with their
// receipts, presence entries. Only their shapes: SimnetState (state.ts) holds them, and every
// module that reads or changes one imports its type from here.
import type { WebSocket } from "ws";
import type { AccountAddressing } from "../addressing-rules.ts";
import type { MessageContent, PresenceState, ServerFrame, SimCapping, SimTimelock } from "../wire/protocol.ts";

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
