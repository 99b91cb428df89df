import {
  ApiError,
  type ConnectionStatus,
  type ExistsResult,
  type OutboundContent,
  type PresenceState,
  type SendOptions,
  type SendResult,
  type SessionOpHandlers,
} from "@gw/contracts";
import { StaleLeaseError } from "@gw/platform";
import {
  type ConnectionState,
  downloadMediaMessage,
  isJidGroup,
  makeWASocket,
  normalizeMessageContent,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
  type WAVersion,
} from "@whiskeysockets/baileys";
import type { Picture, ProviderContext, ProviderSession } from "../contract.ts";
import { accountFromMe, isPaired, mapCapping, mapTimelock } from "./account.ts";
import { baileysOps } from "./areas.ts";
import { type BaileysLogger, BoundedCache, type RedisAuthState, useRedisAuthState } from "./auth-state.ts";
import { networkCodeOf, toApiError } from "./errors.ts";
import { GroupCache } from "./group-cache.ts";
import { parseStoredMessage, storedForm } from "./inbound.ts";
import { InboundEvents } from "./inbound-events.ts";
import {
  brazilianAlternative,
  isBareMessageId,
  type OutboundContext,
  parseMessageId,
  toBaileysContent,
  toChatId,
  toJid,
} from "./outbound.ts";
import {
  type DisconnectAction,
  type DisconnectRecord,
  decideDisconnect,
  describeDisconnectError,
  recordDisconnect,
} from "./policy.ts";
import { buildPollVote } from "./poll-vote.ts";
import { type BaileysSessionOptions, baileysLogger, browserFromSettings } from "./session-options.ts";
import { SocketCalls } from "./socket-calls.ts";
import { withTimeout } from "./with-timeout.ts";

export { type BaileysSessionOptions, browserFromSettings } from "./session-options.ts";

const PASSKEY_MESSAGE =
  "Pareamento por passkey não é suportado em instâncias padrão. Use o QR code ou o código de pareamento.";
const PAIRING_METHOD_MESSAGE =
  "Envio do código por SMS ou ligação não é suportado em instâncias padrão. Omita o campo method: o código é exibido na resposta para ser digitado no WhatsApp (Aparelhos conectados > Conectar com número de telefone).";

interface QrWaiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

class BaileysSession implements ProviderSession {
  readonly provider = "baileys" as const;

  private readonly log: BaileysLogger;
  private readonly makeSocket: typeof makeWASocket;
  private version: WAVersion | undefined;
  /** Outside the socket so retry counts survive reconnects (reference §1.1). */
  private readonly msgRetryCounterCache = new BoundedCache(5_000, 60 * 60_000);
  private readonly userDevicesCache = new BoundedCache(5_000, 5 * 60_000);
  private readonly callOfferCache = new BoundedCache(500, 5 * 60_000);
  private readonly placeholderResendCache = new BoundedCache(1_000, 60 * 60_000);
  /** Participants and subjects of groups (sends' `mentions: ["all"]`, received messages' `chatName`). */
  private readonly groups = new GroupCache();
  /** Received messages, acks and contact names from the socket's events. */
  private readonly inbound: InboundEvents;

  private active = false;
  private auth: RedisAuthState | null = null;
  private sock: WASocket | null = null;
  /** Bumped whenever the current socket is retired: events of older sockets are ignored. */
  private generation = 0;
  private opened = false;
  private qr: string | null = null;
  private status: ConnectionStatus | null = null;
  private lastAccountKey = "";
  private history: DisconnectRecord[] = [];
  private reconnectTimer: NodeJS.Timeout | null = null;
  private qrWaiters: QrWaiter[] = [];
  private pairingAttempts: number[] = [];
  private saveChain: Promise<void> = Promise.resolve();
  private saveQueued = false;
  /** Messaging calls in flight on the current socket (the session's and the areas'). */
  private readonly calls: SocketCalls;
  /** The feature areas' hooks on every socket (areas.ts). */
  private readonly socketListeners: ((sock: WASocket, current: () => boolean) => void)[] = [];
  readonly ops: SessionOpHandlers;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
  ) {
    this.log = baileysLogger(ctx);
    this.makeSocket = opts.makeSocket ?? makeWASocket;
    this.version = opts.version;
    this.calls = new SocketCalls({ log: this.log, onStaleLease: (err) => this.onStaleLease(err) });
    this.inbound = new InboundEvents({
      ctx,
      log: this.log,
      groups: this.groups,
      loadMessage: (key) => this.loadMessage(key),
      isOpen: (sock) => sock === this.sock && this.opened,
    });
    this.ops = baileysOps({
      ctx,
      socket: () => this.openSocket(),
      call: (op, fn) => this.calls.run(op, () => fn(this.openSocket())),
      onSocket: (listen) => this.socketListeners.push(listen),
    });
  }

  // ── lifecycle ────────────────────────────────────────────────────────────

  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    this.history = [];
    try {
      const auth = await useRedisAuthState(this.ctx.auth, {
        logger: this.log,
        onStaleLease: (err) => this.onStaleLease(err),
      });
      if (!this.active) return;
      this.auth = auth;
      await this.connect();
    } catch (err) {
      this.active = false;
      this.auth = null;
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.active = false;
    this.clearReconnect();
    this.rejectQrWaiters(new ApiError("instance_not_connected"));
    await this.retireSocket();
    await this.flushCreds();
    this.auth = null;
    this.qr = null;
    this.status = null;
  }

  async logout(): Promise<void> {
    const sock = this.sock;
    const wasOpen = this.opened;
    this.active = false;
    this.clearReconnect();
    this.rejectQrWaiters(new ApiError("instance_not_connected"));
    if (sock && wasOpen) {
      // Retire first: the 401 "Intentional Logout" close that follows is ours, not the network's.
      this.generation++;
      this.sock = null;
      this.opened = false;
      this.calls.abortAll();
      try {
        await withTimeout(sock.logout(), this.opts.logoutTimeoutMs ?? 10_000);
      } catch (err) {
        this.log.warn({ err }, "remove-companion-device failed; wiping the auth state anyway");
      }
    }
    await this.retireSocket(sock ?? undefined);
    // Let queued creds writes land before the wipe, so none lands after it.
    await this.saveChain;
    const auth = this.auth;
    this.auth = null;
    this.qr = null;
    this.status = null;
    if (auth) await auth.clear();
    else await this.ctx.auth.clear();
  }

  currentQr(): string | null {
    return this.qr;
  }

  // ── pairing ──────────────────────────────────────────────────────────────

  async requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string> {
    if (method === "sms" || method === "voice") throw new ApiError("not_supported", PAIRING_METHOD_MESSAGE);
    const digits = phone.replace(/\D/g, "");
    if (!/^\d{8,15}$/.test(digits)) {
      throw new ApiError("validation_error", "Informe o número no formato internacional, só dígitos.", {
        phoneNumber: "informe o número no formato internacional, só dígitos",
      });
    }
    if (this.auth && isPaired(this.auth.state.creds)) {
      throw new ApiError("bad_request", "Este número já está pareado. Faça logout para parear outro.");
    }
    if (!this.active) {
      throw new ApiError("instance_not_connected", "Inicie a instância e aguarde o QR code para pedir o código.");
    }
    const limit = this.opts.pairingCodeLimit ?? { max: 5, windowMs: 10 * 60_000 };
    const now = Date.now();
    this.pairingAttempts = this.pairingAttempts.filter((t) => now - t < limit.windowMs);
    if (this.pairingAttempts.length >= limit.max) {
      const retryAfter = Math.max(1, Math.ceil((this.pairingAttempts[0]! + limit.windowMs - now) / 1000));
      throw new ApiError("too_many_attempts", undefined, undefined, retryAfter);
    }
    // The request goes out on the socket: it must be up (official example: after the first QR).
    await this.waitForQr(this.opts.pairingReadyTimeoutMs ?? 30_000);
    const sock = this.sock;
    if (!sock || !this.auth || isPaired(this.auth.state.creds)) throw new ApiError("instance_not_connected");
    this.pairingAttempts.push(Date.now());
    try {
      return await sock.requestPairingCode(digits);
    } catch (err) {
      this.log.warn({ err }, "pairing code request failed");
      throw toApiError(err);
    }
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
    return accountFromMe(this.openSocket().authState.creds.me);
  }

  async capping() {
    const sock = this.openSocket();
    try {
      return mapCapping(await sock.fetchNewChatMessageCap());
    } catch (err) {
      this.log.warn({ err }, "message capping query failed");
      throw toApiError(err);
    }
  }

  async timelock() {
    const sock = this.openSocket();
    try {
      return mapTimelock(await sock.fetchAccountReachoutTimelock());
    } catch (err) {
      this.log.warn({ err }, "reachout timelock query failed");
      throw toApiError(err);
    }
  }

  // ── messaging ────────────────────────────────────────────────────────────

  async send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    const sock = this.openSocket();
    if (content.type === "poll_vote") return this.vote(sock, chatId, content.pollId, content.votes, options);
    return this.calls.run("send", async () => {
      const out = await toBaileysContent(chatId, content, options, this.outboundContext(sock));
      const sent = await sock.sendMessage(out.jid, out.content, out.options);
      // Before Baileys echoes it back as an `append` upsert (emitOwnEvents, on a later tick):
      // the manager announces API sends itself.
      if (sent?.key.id) this.inbound.markOwnSend(sent.key.id);
      const id = sent?.key.id;
      if (!sent || !id) throw new ApiError("network_error");
      const result = {
        id,
        chatId: toChatId(sent.key.remoteJid || out.jid),
        timestamp: unixSecondsOf(sent.messageTimestamp),
      };
      // Kept for Baileys' retries (getMessage), quotes and reactions by bare id.
      await this.ctx.rawMessages
        .save(id, storedForm(sent))
        .catch((err) => this.log.warn({ err }, "keeping the sent message failed"));
      // Baileys never reports the server's ack of a send (reference §5): the manager announces
      // `sent` with every send it makes.
      return result;
    });
  }

  /** A poll vote: encrypted with the stored poll's secret and relayed as is (rc14 builds none). */
  private async vote(
    sock: WASocket,
    chatId: string,
    pollId: string,
    votes: string[],
    options: SendOptions,
  ): Promise<SendResult> {
    const jid = toJid(chatId);
    if (!jid) throw new ApiError("validation_error", "Campos inválidos.", { chatId: "chatId inválido" });
    const poll = await this.loadMessage({ remoteJid: jid, id: parseMessageId(pollId)?.id ?? pollId });
    if (!poll) {
      throw new ApiError("validation_error", "Campos inválidos.", {
        pollMessageId: "enquete desconhecida (só as enviadas ou recebidas nos últimos 7 dias)",
      });
    }
    const message = buildPollVote(poll, votes, { id: sock.user?.id, lid: sock.user?.lid });
    return this.calls.run("send", async () => {
      const id = await sock.relayMessage(jid, message, options.id ? { messageId: options.id } : {});
      const result = { id, chatId: toChatId(jid), timestamp: Math.floor(Date.now() / 1000) };
      this.inbound.markOwnSend(id);
      return result; // `sent` is announced by the manager, as for every send
    });
  }

  /**
   * The network answers a temporary CDN URL for the picture (or an error when none is visible to
   * us: privacy, no picture); we fetch its bytes so that our own signed link can serve them.
   */
  async picture(chatId: string): Promise<Picture | null> {
    const sock = this.openSocket();
    const url = await this.calls.run("picture", async () => {
      try {
        return await sock.profilePictureUrl(chatJid(chatId), "image");
      } catch (err) {
        // No picture, or privacy: the server's `<error code>` (see networkCodeOf).
        const code = networkCodeOf(err);
        if (code === 404 || code === 401 || code === 403) return undefined;
        throw err;
      }
    });
    if (!url) return null;
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000) }).catch(() => null);
    if (!res?.ok) return null;
    const data = Buffer.from(await res.arrayBuffer()).toString("base64");
    return { data, mimetype: res.headers.get("content-type")?.split(";")[0] || "image/jpeg" };
  }

  async checkExists(phone: string): Promise<ExistsResult> {
    const sock = this.openSocket();
    const raw = phone.trim();
    const digits = (raw.split("@")[0] ?? "").replace(/\D/g, "");
    if (/@lid$/.test(raw) || !/^\d{8,15}$/.test(digits)) {
      throw new ApiError("validation_error", "Informe o número no formato internacional, só dígitos.", {
        phone: "informe o número no formato internacional, só dígitos",
      });
    }
    return this.calls.run("checkExists", async () => {
      let jid = await registeredJid(sock, digits);
      const alternative = brazilianAlternative(digits);
      if (!jid && alternative) jid = await registeredJid(sock, alternative);
      if (!jid) return { exists: false, chatId: null, lid: null };
      return { exists: true, chatId: toChatId(jid), lid: await this.lidFor(sock, jid) };
    });
  }

  async markRead(chatId: string, messageIds: string[]): Promise<void> {
    const sock = this.openSocket();
    const jid = chatJid(chatId);
    const keys: WAMessageKey[] = [];
    for (const value of messageIds) {
      const parsed = parseMessageId(value);
      if (parsed) {
        // Our own messages get no read receipt (Baileys drops them too).
        if (!parsed.fromMe) keys.push(parsed);
        continue;
      }
      if (!isBareMessageId(value)) {
        throw new ApiError("validation_error", "Id de mensagem inválido.", { messageIds: "id de mensagem inválido" });
      }
      if (isJidGroup(jid)) {
        // A group receipt names the sender; a bare id does not say who it was.
        throw new ApiError("validation_error", "Em grupos, use o id completo da mensagem (com o participante).", {
          messageIds: "em grupos, use o id completo {fromMe}_{chatId}_{id}_{participant}",
        });
      }
      keys.push({ remoteJid: jid, id: value.trim(), fromMe: false });
    }
    if (keys.length === 0) return;
    await this.calls.run("markRead", async () => {
      // readMessages asks for the privacy settings first (once per socket); unanswered, Baileys
      // fails with a TypeError on the missing response node: a timeout, not a bug of ours.
      await sock.readMessages(keys).catch((err: unknown) => {
        throw err instanceof TypeError ? new ApiError("network_timeout") : err;
      });
    });
  }

  async presence(state: PresenceState, chatId?: string): Promise<void> {
    const sock = this.openSocket();
    let jid: string | undefined;
    if (state === "available" || state === "unavailable") {
      // Baileys silently skips a global presence when the account has no push name.
      if (!sock.authState.creds.me?.name) {
        throw new ApiError(
          "bad_request",
          "A conta não tem nome de perfil: defina um nome no WhatsApp para enviar presença online/offline.",
        );
      }
    } else {
      if (!chatId) throw new ApiError("validation_error", "Informe o chatId.", { chatId: "informe o chatId" });
      jid = chatJid(chatId);
    }
    await this.calls.run("presence", () => sock.sendPresenceUpdate(state, jid));
  }

  private outboundContext(sock: WASocket): OutboundContext {
    return {
      me: sock.authState.creds.me,
      loadMessage: (key) => this.loadMessage(key),
      groupParticipants: (jid) => this.groups.participants(sock, jid),
    };
  }

  async downloadMedia(networkId: string): Promise<Picture | null> {
    const sock = this.openSocket();
    const msg = await this.loadMessage({ id: networkId });
    const content = msg ? normalizeMessageContent(msg.message) : undefined;
    const node =
      content?.imageMessage ??
      content?.videoMessage ??
      content?.ptvMessage ??
      content?.audioMessage ??
      content?.documentMessage ??
      content?.stickerMessage;
    if (!msg || !node) return null;
    return this.calls.run("downloadMedia", async () => {
      const data = await downloadMediaMessage(
        msg,
        "buffer",
        {},
        { reuploadRequest: sock.updateMediaMessage, logger: sock.logger },
      );
      return { data: data.toString("base64"), mimetype: node.mimetype || "application/octet-stream" };
    });
  }

  private async loadMessage(key: WAMessageKey): Promise<WAMessage | undefined> {
    if (this.opts.loadMessage) return this.opts.loadMessage(key);
    if (!key.id) return undefined;
    const raw = await this.ctx.rawMessages.load(key.id);
    return raw ? parseStoredMessage(raw) : undefined;
  }

  /** The LID of a registered number: local mapping store, else one USync LID query; null on failure. */
  private async lidFor(sock: WASocket, pnJid: string): Promise<string | null> {
    try {
      const lid = await withTimeout(
        sock.signalRepository.lidMapping.getLIDForPN(pnJid),
        this.opts.lidLookupTimeoutMs ?? 5_000,
      );
      return lid ? toChatId(lid) : null;
    } catch (err) {
      this.log.debug({ err }, "LID lookup failed");
      return null;
    }
  }

  // ── internals ────────────────────────────────────────────────────────────

  private openSocket(): WASocket {
    if (!this.sock || !this.opened) throw new ApiError("instance_not_connected");
    return this.sock;
  }

  private socketConfig(auth: RedisAuthState): UserFacingSocketConfig {
    return {
      auth: auth.state,
      logger: this.log,
      browser: this.opts.browser ?? browserFromSettings(this.ctx.instance),
      ...(this.version ? { version: this.version } : {}),
      markOnlineOnConnect: false,
      syncFullHistory: false,
      // Sent and received messages are kept (ctx.rawMessages); a miss is the honest answer (reference §1.1).
      getMessage: async (key) => {
        try {
          return (await this.loadMessage(key))?.message ?? undefined;
        } catch (err) {
          this.log.warn({ err }, "getMessage lookup failed");
          return undefined;
        }
      },
      // A stale lease fails every retry: give up fast (the session stops on the first one anyway).
      transactionOpts: { maxCommitRetries: 3, delayBetweenTriesMs: 250 },
      msgRetryCounterCache: this.msgRetryCounterCache,
      userDevicesCache: this.userDevicesCache,
      callOfferCache: this.callOfferCache,
      placeholderResendCache: this.placeholderResendCache,
    };
  }

  /** Ends the current socket (if any) and builds the next one. Never two sockets. */
  private async connect(): Promise<void> {
    // Loop: a concurrent connect may have built a socket while this one waited for an end().
    // Socket creation below is synchronous, so once no socket is left, this one is the only one.
    while (this.sock) await this.retireSocket();
    const auth = this.auth;
    if (!this.active || !auth) return;
    const creds = auth.state.creds;
    if (!isPaired(creds) && creds.me) {
      // Left over by a pairing-code request that never completed: with `me` set Baileys would
      // try to log in instead of registering, and get refused.
      creds.me = undefined;
      creds.pairingCode = undefined;
    }
    const gen = ++this.generation;
    let sock: WASocket;
    try {
      sock = this.makeSocket(this.socketConfig(auth));
    } catch (err) {
      this.log.error({ err }, "could not create the socket");
      await this.onClose(gen, err);
      return;
    }
    this.sock = sock;
    this.opened = false;
    sock.ev.on("connection.update", (update) => {
      if (gen !== this.generation) return;
      this.onConnectionUpdate(gen, sock, update).catch((err) => this.log.error({ err }, "connection.update handler"));
    });
    this.inbound.listen(sock);
    this.groups.listen(sock);
    sock.ev.on("creds.update", () => {
      if (gen !== this.generation) return;
      void this.saveCreds();
      if (this.opened) this.emitAccount(sock);
    });
    for (const listen of this.socketListeners) listen(sock, () => gen === this.generation);
  }

  /** Ends a socket we no longer want; its close event is ignored. */
  private async retireSocket(sock: WASocket | undefined = this.sock ?? undefined): Promise<void> {
    if (sock === this.sock) {
      this.generation++;
      this.sock = null;
      this.opened = false;
      this.calls.abortAll();
    }
    if (!sock) return;
    try {
      await sock.end(undefined);
    } catch (err) {
      this.log.warn({ err }, "error while ending the socket");
    }
  }

  private async onConnectionUpdate(gen: number, sock: WASocket, u: Partial<ConnectionState>): Promise<void> {
    if (u.qr) {
      this.qr = u.qr;
      this.ctx.emit({ type: "qr", value: u.qr });
      this.setStatus("SCAN_QR_CODE");
      this.resolveQrWaiters();
    }
    if (u.isNewLogin) {
      // pair-success: the QR is spent; the server restarts the stream (515) next.
      this.qr = null;
      this.emitAccount(sock);
    }
    if (u.connection === "connecting") {
      this.setStatus("STARTING");
    } else if (u.connection === "open") {
      this.opened = true;
      this.qr = null;
      this.rejectQrWaiters(new ApiError("bad_request", "Este número já está pareado."));
      this.setStatus("WORKING");
      this.emitAccount(sock);
    } else if (u.connection === "close") {
      await this.onClose(gen, u.lastDisconnect?.error);
    }
  }

  private async onClose(gen: number, error: unknown): Promise<void> {
    if (gen !== this.generation) return;
    this.generation++;
    this.sock = null;
    this.opened = false;
    this.qr = null;
    this.calls.abortAll();
    if (!this.active) return;
    if (error instanceof StaleLeaseError) {
      this.onStaleLease(error);
      return;
    }
    const auth = this.auth;
    const described = describeDisconnectError(error);
    const { statusCode, message } = described;
    const registered = auth ? isPaired(auth.state.creds) : false;
    const now = Date.now();
    const action = decideDisconnect({ ...described, registered }, this.history, {
      now,
      tuning: this.opts.policy,
    });
    this.history = recordDisconnect(this.history, { at: now, statusCode });
    this.log.warn({ statusCode, message, action }, "connection closed");
    await this.apply(action);
  }

  private async apply(action: DisconnectAction): Promise<void> {
    switch (action.kind) {
      case "reconnect-now":
        // The pairing just written by pair-success must be in Redis before the restart.
        await this.flushCreds();
        this.scheduleConnect(0);
        return;
      case "backoff":
        if (action.refreshVersion) await this.refreshVersion();
        this.setStatus("STARTING", action.reason);
        this.scheduleConnect(action.delayMs);
        return;
      case "replaced-backoff":
        this.setStatus("STARTING", action.reason);
        this.scheduleConnect(action.delayMs);
        return;
      case "logged-out":
        this.halt();
        this.auth = null;
        await this.saveChain;
        try {
          await this.ctx.auth.clear();
        } catch (err) {
          if (err instanceof StaleLeaseError) return this.onStaleLease(err);
          this.log.error({ err }, "could not wipe the auth state after logout");
        }
        this.ctx.emit({ type: "logged-out", reason: action.reason });
        return;
      case "qr-expired":
        this.halt();
        this.setStatus("STOPPED", action.reason);
        return;
      case "failed":
        this.halt();
        await this.flushCreds();
        this.setStatus("FAILED", action.reason);
        return;
    }
  }

  private async refreshVersion(): Promise<void> {
    try {
      const v = this.opts.resolveVersion ? await this.opts.resolveVersion() : this.opts.version;
      this.version = v;
    } catch (err) {
      this.log.warn({ err }, "could not refresh the protocol version; keeping the current one");
    }
  }

  /** The network ended the session: nothing reconnects. */
  private halt(): void {
    this.active = false;
    this.clearReconnect();
    this.rejectQrWaiters(new ApiError("instance_not_connected"));
  }

  private onStaleLease(err: StaleLeaseError): void {
    if (!this.active && !this.sock) return;
    this.log.warn({ err: err.message }, "lease lost: stopping the connection");
    this.halt();
    this.auth = null;
    void this.retireSocket();
  }

  private scheduleConnect(delayMs: number): void {
    this.clearReconnect();
    if (!this.active) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch((err) => this.log.error({ err }, "reconnect failed"));
    }, delayMs);
  }

  private clearReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private setStatus(status: ConnectionStatus, reason?: string): void {
    if (this.status === status) return;
    this.status = status;
    this.ctx.emit(reason ? { type: "status", status, reason } : { type: "status", status });
  }

  // Not `sock.user`: Baileys builds the socket by spreading each layer, which evaluates that
  // getter once at creation; `authState.creds` is the live object creds.update merges into.
  private emitAccount(sock: WASocket): void {
    const account = accountFromMe(sock.authState.creds.me);
    const key = `${account.phone}|${account.lid}|${account.pushName}`;
    if (key === this.lastAccountKey || !account.phone) return;
    this.lastAccountKey = key;
    this.ctx.emit({ type: "account", account });
  }

  // Creds: one write at a time, bursts coalesced; each write stores the whole creds object.
  // Only paired creds are stored, so "has creds" in Redis keeps meaning "was paired".
  private saveCreds(): Promise<void> {
    const auth = this.auth;
    if (!auth) return this.saveChain;
    if (this.saveQueued) return this.saveChain;
    this.saveQueued = true;
    const write = async () => {
      this.saveQueued = false;
      if (this.auth !== auth || !isPaired(auth.state.creds)) return;
      await auth.saveCreds();
    };
    this.saveChain = this.saveChain.then(write).catch((err) => {
      if (!(err instanceof StaleLeaseError)) this.log.error({ err }, "could not save creds");
    });
    return this.saveChain;
  }

  private flushCreds(): Promise<void> {
    return this.saveCreds();
  }

  private waitForQr(timeoutMs: number): Promise<void> {
    if (this.qr && this.sock) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: QrWaiter = {
        resolve: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        reject: (err) => {
          clearTimeout(waiter.timer);
          reject(err);
        },
        timer: setTimeout(() => {
          this.qrWaiters = this.qrWaiters.filter((w) => w !== waiter);
          reject(new ApiError("network_timeout", "A conexão não ficou pronta para parear a tempo. Tente novamente."));
        }, timeoutMs),
      };
      this.qrWaiters.push(waiter);
    });
  }

  private resolveQrWaiters(): void {
    const waiters = this.qrWaiters;
    this.qrWaiters = [];
    for (const w of waiters) w.resolve();
  }

  private rejectQrWaiters(err: Error): void {
    const waiters = this.qrWaiters;
    this.qrWaiters = [];
    for (const w of waiters) w.reject(err);
  }
}

/** The JID of a chat id, or 422 `chatId`. */
function chatJid(chatId: string): string {
  const jid = toJid(chatId);
  if (!jid) {
    throw new ApiError("validation_error", "chatId inválido.", {
      chatId: "use <número>@c.us, um @lid, um @g.us ou um @newsletter",
    });
  }
  return jid;
}

/**
 * The JID the network registered for a number. `onWhatsApp` lists only numbers that exist (an
 * empty list: none), and answers undefined when the query got no answer in time.
 */
async function registeredJid(sock: WASocket, digits: string): Promise<string | undefined> {
  const results = await sock.onWhatsApp(digits);
  if (!results) throw new ApiError("network_timeout", "A rede de mensagens não respondeu à consulta do número.");
  return results.find((r) => r.exists && r.jid)?.jid;
}

/** `messageTimestamp` (number or protobuf Long, seconds) as a number; now when absent. */
function unixSecondsOf(ts: WAMessage["messageTimestamp"]): number {
  if (typeof ts === "number") return ts;
  if (ts) return Number(ts.toString());
  return Math.floor(Date.now() / 1000);
}

export function createBaileysSession(ctx: ProviderContext, opts: BaileysSessionOptions = {}): ProviderSession {
  return new BaileysSession(ctx, opts);
}
