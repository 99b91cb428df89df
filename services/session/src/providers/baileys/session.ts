import {
  ApiError,
  type ExistsResult,
  type OutboundContent,
  type PresenceState,
  type SendOptions,
  type SendResult,
  type SessionOpHandlers,
} from "@gw/contracts";
import { jidNormalizedUser, type WAMessage, type WAMessageKey } from "@whiskeysockets/baileys";
import { AddressFallback } from "../address-fallback.ts";
import { ConversationAddressing } from "../addressing.ts";
import type { Picture, ProviderContext, ProviderSession } from "../contract.ts";
import { accountFromMe, mapCapping, mapTimelock } from "./account.ts";
import { baileysOps } from "./areas/index.ts";
import type { BaileysLogger } from "./connection/auth-state.ts";
import { BaileysConnection } from "./connection/connection.ts";
import { PASSKEY_MESSAGE, PairingCodes } from "./connection/pairing.ts";
import { type BaileysSessionOptions, baileysLogger } from "./connection/session-options.ts";
import { SocketCalls } from "./connection/socket-calls.ts";
import { toApiError } from "./errors.ts";
import { GroupCache } from "./group-cache.ts";
import { parseStoredMessage } from "./inbound/inbound.ts";
import { InboundEvents } from "./inbound/inbound-events.ts";
import { toChatId, toJid } from "./jids.ts";
import { BaileysMessaging } from "./outbound/messaging.ts";
import { withTimeout } from "./with-timeout.ts";

export { type BaileysSessionOptions, browserFromSettings } from "./connection/session-options.ts";

/**
 * One instance's Baileys session (the provider contract), wired from its parts: the connection
 * (connection/connection.ts), the inbound side (inbound/inbound-events.ts), the messaging
 * operations (outbound/messaging.ts), pairing codes (connection/pairing.ts), the call wrapper they
 * and the feature areas share (connection/socket-calls.ts) and the areas' operations (areas/).
 *
 * The provider's folders: connection/ (the socket, its lifecycle, auth state, pairing), inbound/
 * (received messages and events), outbound/ (sends and what they need), areas/ (the feature
 * areas' operations), test/ (the tests' rigs); beside this file, what they all share (ids,
 * errors, the account, seconds, the group cache) and index.ts, the provider's entry.
 */
class BaileysSession implements ProviderSession {
  readonly provider = "baileys" as const;

  private readonly log: BaileysLogger;
  /** The socket's lifecycle: connect, reconnect, close handling, QR, status and account events. */
  private readonly connection: BaileysConnection;
  /** Messaging calls in flight on the current socket (the session's and the areas'). */
  private readonly calls: SocketCalls;
  /** Participants and subjects of groups (sends' `mentions: ["all"]`, received messages' `chatName`). */
  private readonly groups = new GroupCache();
  /** Received messages, acks and contact names from the socket's events. */
  private readonly inbound: InboundEvents;
  /** Sends, receipts, presence, number checks, pictures and media downloads. */
  private readonly messaging: BaileysMessaging;
  /** Pairing-code requests. */
  private readonly pairing: PairingCodes;
  readonly ops: SessionOpHandlers;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
  ) {
    this.log = baileysLogger(ctx);
    this.calls = new SocketCalls({ log: this.log, onStaleLease: (err) => this.connection.onStaleLease(err) });
    this.connection = new BaileysConnection(ctx, opts, this.log, {
      loadMessage: (key) => this.loadMessage(key),
      abortCalls: () => this.calls.abortAll(),
      listen: (sock) => {
        this.inbound.listen(sock);
        this.groups.listen(sock);
      },
      groupMetadata: (sock, jid) => this.groups.metadata(sock, jid),
    });
    const addressing = new ConversationAddressing(ctx, {
      lidForPhone: (pn) => this.lidMapping("lid", pn),
      phoneForLid: (lid) => this.lidMapping("pn", lid),
    });
    const fallback = new AddressFallback(addressing);
    this.inbound = new InboundEvents({
      ctx,
      log: this.log,
      groups: this.groups,
      loadMessage: (key) => this.loadMessage(key),
      isOpen: (sock) => this.connection.isOpen(sock),
      addressing,
      fallback,
      resend: (id, to) => this.messaging.resend(id, to),
    });
    this.messaging = new BaileysMessaging({
      ctx,
      log: this.log,
      groups: this.groups,
      lidLookupTimeoutMs: opts.lidLookupTimeoutMs,
      openSocket: () => this.connection.openSocket(),
      call: (op, fn) => this.calls.run(op, fn),
      loadMessage: (key) => this.loadMessage(key),
      markOwnSend: (id) => this.inbound.markOwnSend(id),
      addressing,
      fallback,
    });
    this.pairing = new PairingCodes(this.log, opts, this.connection);
    this.ops = baileysOps({
      ctx,
      socket: () => this.connection.openSocket(),
      call: (op, fn) => this.calls.run(op, () => fn(this.connection.openSocket())),
      onSocket: (listen) => this.connection.onSocket(listen),
    });
  }

  // ── lifecycle (connection.ts) ────────────────────────────────────────────

  start(): Promise<void> {
    return this.connection.start();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  logout(): Promise<void> {
    return this.connection.logout();
  }

  currentQr(): string | null {
    return this.connection.currentQr();
  }

  // ── pairing (pairing.ts) ─────────────────────────────────────────────────

  requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string> {
    return this.pairing.request(phone, method);
  }

  async passkeyChallenge(): Promise<never> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async submitPasskey(): Promise<void> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async passkeyConfirmation(): Promise<never> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  async confirmPasskey(): Promise<void> {
    throw new ApiError("not_supported", PASSKEY_MESSAGE);
  }

  // ── account routes ───────────────────────────────────────────────────────

  async account() {
    return accountFromMe(this.connection.openSocket().authState.creds.me);
  }

  async capping() {
    const sock = this.connection.openSocket();
    try {
      return mapCapping(await sock.fetchNewChatMessageCap());
    } catch (err) {
      this.log.warn({ err }, "message capping query failed");
      throw toApiError(err);
    }
  }

  async timelock() {
    const sock = this.connection.openSocket();
    try {
      return mapTimelock(await sock.fetchAccountReachoutTimelock());
    } catch (err) {
      this.log.warn({ err }, "reachout timelock query failed");
      throw toApiError(err);
    }
  }

  // ── messaging (messaging.ts) ─────────────────────────────────────────────

  send(chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult> {
    return this.messaging.send(chatId, content, options);
  }

  picture(chatId: string): Promise<Picture | null> {
    return this.messaging.picture(chatId);
  }

  checkExists(phone: string): Promise<ExistsResult> {
    return this.messaging.checkExists(phone);
  }

  markRead(chatId: string, messageIds: string[]): Promise<void> {
    return this.messaging.markRead(chatId, messageIds);
  }

  presence(state: PresenceState, chatId?: string): Promise<void> {
    return this.messaging.presence(state, chatId);
  }

  downloadMedia(networkId: string): Promise<Picture | null> {
    return this.messaging.downloadMedia(networkId);
  }

  /**
   * The other id of a pair from Baileys' local LID store (no network query): `lid` of a number
   * (`<digits>@c.us`), `pn` of a LID; as gateway ids, null when unknown or not connected.
   */
  private async lidMapping(want: "lid" | "pn", id: string): Promise<string | null> {
    const mapping = this.connection.currentSocket()?.signalRepository.lidMapping;
    const jid = toJid(id);
    if (!mapping || !jid) return null;
    // A number without a local pair costs one USync query (lid-mapping.js): bounded.
    const lookup = want === "lid" ? mapping.getLIDForPN(jid) : mapping.getPNForLID(jid);
    const found = await withTimeout(lookup, this.opts.lidLookupTimeoutMs ?? 5_000).catch(() => null);
    return found ? toChatId(jidNormalizedUser(found)) : null;
  }

  /** The stored message for a key: `opts.loadMessage` when given, else the kept raw messages. */
  private async loadMessage(key: WAMessageKey): Promise<WAMessage | undefined> {
    if (this.opts.loadMessage) return this.opts.loadMessage(key);
    if (!key.id) return undefined;
    const raw = await this.ctx.rawMessages.load(key.id);
    return raw ? parseStoredMessage(raw) : undefined;
  }
}

export function createBaileysSession(ctx: ProviderContext, opts: BaileysSessionOptions = {}): ProviderSession {
  return new BaileysSession(ctx, opts);
}
