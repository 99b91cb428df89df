import type {
  AccountInfo,
  Capping,
  ConnectionStatus,
  EventKind,
  ExistsResult,
  InboundMessage,
  Instance,
  OutboundContent,
  PasskeyAssertion,
  PasskeyChallenge,
  PresenceState,
  Provider,
  SendOptions,
  SendResult,
  SessionOpHandlers,
  StatusCause,
  Timelock,
} from "@gw/contracts";
import type { AuthStateStore, Logger } from "@gw/platform";

/**
 * The one contract every provider implements (`sim`, `baileys`, `cloud`). A session is one
 * instance's connection, created by the session manager only while it holds the instance's
 * lease; it reports what happens through `emit` and never touches Redis except through its
 * fenced {@link AuthStateStore}.
 *
 * Errors thrown from operations are `ApiError`s with the spec's codes (`not_supported`,
 * `too_many_attempts`, `instance_not_connected`, `network_error`, `network_timeout`, …).
 */
export interface ProviderSession {
  readonly provider: Provider;
  /** Connects (or reconnects from stored credentials). Progress arrives as events. */
  start(): Promise<void>;
  /** Closes the connection and keeps the pairing. Idempotent. */
  stop(): Promise<void>;
  /** Unpairs: removes the device on the phone (when connected) and wipes the auth state. */
  logout(): Promise<void>;

  /** The QR value shown while pairing, or null. */
  currentQr(): string | null;
  /** An 8-character code to type on the phone (`phone`: digits with country code). */
  requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string>;
  passkeyChallenge(): Promise<PasskeyChallenge>;
  submitPasskey(assertion: PasskeyAssertion): Promise<void>;
  passkeyConfirmation(): Promise<{ code: string }>;
  confirmPasskey(): Promise<void>;

  /** The connected account (needs the connection open). */
  account(): Promise<AccountInfo>;
  capping(): Promise<Capping>;
  timelock(): Promise<Timelock>;

  // --- messaging (needs the connection open) --------------------------------------------
  /** Sends one message to a chat id (`<digits>@c.us`, `@g.us`, `@lid`, `@newsletter`). */
  send(chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult>;
  /** Whether a number has an account, and the chat id the network registered for it. */
  checkExists(phone: string): Promise<ExistsResult>;
  /** Marks received messages (network ids) of a chat as read. */
  markRead(chatId: string, messageIds: string[]): Promise<void>;
  /** Presence: typing/recording/paused in a chat, or available/unavailable for the account. */
  presence(state: PresenceState, chatId?: string): Promise<void>;
  /** A chat's name when the provider can tell it without a message from it (a group's subject); optional. */
  chatTitle?(chatId: string): Promise<string | null>;
  /**
   * The media of a message the provider did not hand over inline (Baileys downloads it from the
   * network's CDN, asking the phone to re-upload when expired); null when it has none or is gone.
   */
  downloadMedia?(networkId: string): Promise<Picture | null>;
  /** The profile picture of a contact or group (base64 + mimetype), or null when none is visible. */
  picture(chatId: string): Promise<Picture | null>;

  /**
   * The feature areas' operations this provider implements (contracts/session-ops.ts), built
   * from its per-area modules. An operation it lacks answers 501 (the capability table says so).
   */
  readonly ops?: SessionOpHandlers;
  /**
   * The provider reports the `sent` ack of its sends itself (the operator's `sent` status, with its
   * pricing), so the manager does not announce one when the send is accepted.
   */
  readonly reportsSentAck?: boolean;
}

/** What a session reports. The manager turns these into instance state and events. */
export type ProviderEvent =
  /**
   * Connection state as the spec names it; `cause` while not WORKING when the provider knows why
   * (FAILED, network-caused stops, reconnecting: `retryAt`), kept on the instance (`statusReason`).
   */
  | { type: "status"; status: ConnectionStatus; cause?: StatusCause }
  /** A new QR value while pairing (about every 20 s). */
  | { type: "qr"; value: string }
  /** Paired or connected: who the number is. */
  | { type: "account"; account: AccountInfo }
  /** The network logged the device out (from the phone, or the pairing was lost): wipe and stop; `reason` is the detail. */
  | { type: "logged-out"; reason: string }
  /** A message arrived, or was sent from the phone / another linked device (spec 6.2 `message`, `message.any`, …). */
  | { type: "message"; message: InboundMessage }
  /** A message this account sent changed status (spec 2.9); `id` is the network's id. */
  | {
      type: "ack";
      id: string;
      chatId: string;
      status: AckStatus;
      timestamp: number;
      error?: string | { code?: number | string; message: string; networkCode?: number };
      /** Official gateway: the operator's conversation category and charge (spec 2.9). */
      pricing?: Record<string, unknown>;
    }
  /** Any other event of spec 6.2 (labels, groups, calls, templates, …), its payload ready. */
  | { type: "event"; kind: EventKind; payload: Record<string, unknown> };

export type AckStatus = "pending" | "sent" | "delivered" | "read" | "played" | "failed";

/** The acks a network reports of a message sent (every {@link AckStatus} but `pending`): others are ignored. */
export const NETWORK_ACKS: ReadonlySet<string> = new Set<AckStatus>(["sent", "delivered", "read", "played", "failed"]);

export interface Picture {
  data: string;
  mimetype: string;
}

export interface ProviderContext {
  instance: Instance;
  /** The session pod that holds the lease (shown to the network for diagnostics). */
  podId: string;
  auth: AuthStateStore;
  /** The provider's own form of messages, by network id (7 days): retries, quotes, decryption. */
  rawMessages: { save(id: string, raw: string): Promise<void>; load(id: string): Promise<string | null> };
  log: Logger;
  emit(event: ProviderEvent): void;
  /**
   * What the instance knows of privacy ids (spec 1 rules 3–4): `rewrite` answers a `@lid` as its
   * `<digits>@c.us` when the number is known (other ids as given); `lidOf` the `@lid` of a number
   * (digits) when known; `learn` records a pair.
   */
  identity: {
    rewrite(id: string): Promise<string>;
    lidOf(phone: string): Promise<string | null>;
    learn(lid: string, phone: string): Promise<void>;
  };
  /**
   * The provider's own small records of the instance (an address book, labels the network synced):
   * hashes in Redis under the instance, kept while the instance exists. Not fenced: nothing in them
   * is the pairing.
   */
  records: {
    put(name: string, entries: Record<string, string>): Promise<void>;
    all(name: string): Promise<Record<string, string>>;
    get(name: string, field: string): Promise<string | null>;
    remove(name: string, fields: string[]): Promise<void>;
  };
}

export type ProviderFactory = (ctx: ProviderContext) => ProviderSession;
