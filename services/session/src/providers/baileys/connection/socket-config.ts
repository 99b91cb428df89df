import {
  type GroupMetadata,
  makeWASocket,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
  type WAVersion,
} from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";
import { type BaileysLogger, BoundedCache, type RedisAuthState } from "./auth-state.ts";
import { type BaileysSessionOptions, browserFromSettings } from "./session-options.ts";

/**
 * Each socket a connection makes: Baileys' `makeWASocket` (or the options' stand-in), its config,
 * the protocol version it claims (asked again after a 405), and the caches Baileys keeps across
 * a connection's sockets.
 */
export class SocketFactory {
  private readonly makeSocket: typeof makeWASocket;
  private version: WAVersion | undefined;
  /** Outside the socket so retry counts survive reconnects (reference §1.1). */
  private readonly msgRetryCounterCache = new BoundedCache(5_000, 60 * 60_000);
  private readonly userDevicesCache = new BoundedCache(5_000, 5 * 60_000);
  private readonly callOfferCache = new BoundedCache(500, 5 * 60_000);
  private readonly placeholderResendCache = new BoundedCache(1_000, 60 * 60_000);

  constructor(
    private readonly ctx: ProviderContext,
    private readonly opts: BaileysSessionOptions,
    private readonly log: BaileysLogger,
    /** The stored message for a key (Baileys' `getMessage`, for retries). */
    private readonly loadMessage: (key: WAMessageKey) => Promise<WAMessage | undefined>,
    /** A group's metadata, cached or asked once on `sock` (group-cache.ts). */
    private readonly groupMetadata: (sock: WASocket, jid: string) => Promise<GroupMetadata>,
  ) {
    this.makeSocket = opts.makeSocket ?? makeWASocket;
    this.version = opts.version;
  }

  /** A new socket with the auth state in use; it connects at once. */
  make(auth: RedisAuthState): WASocket {
    let sock: WASocket | undefined;
    sock = this.makeSocket(this.build(auth, this.version, () => sock));
    return sock;
  }

  /** The protocol version again (`resolveVersion`, else the one configured); kept as it was when that fails. */
  async refreshVersion(): Promise<void> {
    try {
      const v = this.opts.resolveVersion ? await this.opts.resolveVersion() : this.opts.version;
      this.version = v;
    } catch (err) {
      this.log.warn({ err }, "could not refresh the protocol version; keeping the current one");
    }
  }

  /**
   * The next socket's config: the auth state in use, the protocol version to claim (else Baileys'
   * bundled one), and the socket it is for (known once made, before it sends anything).
   */
  private build(
    auth: RedisAuthState,
    version: WAVersion | undefined,
    socket: () => WASocket | undefined,
  ): UserFacingSocketConfig {
    return {
      auth: auth.state,
      logger: this.log,
      browser: this.opts.browser ?? browserFromSettings(this.ctx.instance),
      ...(version ? { version } : {}),
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
      // Else every group send asks for the group's metadata first (Baileys
      // lib/Socket/messages-send.js:501-506): a round trip per message, `rate-overlimit` under
      // volume. A miss asks once on this socket and keeps the answer for the next sends.
      cachedGroupMetadata: async (jid) => {
        const sock = socket();
        return sock ? this.groupMetadata(sock, jid) : undefined;
      },
      // A stale lease fails every retry: give up fast (the session stops on the first one anyway).
      transactionOpts: { maxCommitRetries: 3, delayBetweenTriesMs: 250 },
      msgRetryCounterCache: this.msgRetryCounterCache,
      userDevicesCache: this.userDevicesCache,
      callOfferCache: this.callOfferCache,
      placeholderResendCache: this.placeholderResendCache,
    };
  }
}
