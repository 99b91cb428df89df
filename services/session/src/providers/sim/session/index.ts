import type {
  AccountInfo,
  Capping,
  ExistsResult,
  OutboundContent,
  PasskeyAssertion,
  PasskeyChallenge,
  PresenceState,
  SendOptions,
  SendResult,
  SessionOpHandlers,
  Timelock,
} from "@gw/contracts";
import type { Picture, ProviderContext, ProviderFactory, ProviderSession } from "../../contract.ts";
import { simOps } from "../areas/index.ts";
import { SimConnection } from "./connection.ts";
import { SimFrames } from "./frames.ts";
import { SimSender } from "./send.ts";

/**
 * The `sim` provider: one WebSocket to simnet per instance (docs/simnet.md), behaving like the
 * Baileys provider does on the real network — QR while unpaired, credentials in the fenced auth
 * state, reconnection with backoff on lost connections, logout on `logged_out`.
 *
 * This file is the session the manager holds, put together from its parts: the connection and
 * its pairing (connection.ts, with the requests waiting on it, requests.ts), the send paths
 * (send.ts), the event mapping of what simnet reports (frames.ts), and the feature areas'
 * operations (../areas/). The operations that are one simnet request each are answered here.
 */
export function createSimProvider(simnetUrl: string): ProviderFactory {
  return (ctx) => new SimSession(ctx, `${simnetUrl.replace(/\/$/, "")}/ws`);
}

class SimSession implements ProviderSession {
  readonly provider = "sim" as const;
  readonly ops: SessionOpHandlers;
  private readonly connection: SimConnection;
  private readonly sender: SimSender;
  private readonly frames: SimFrames;

  constructor(ctx: ProviderContext, url: string) {
    this.connection = new SimConnection(ctx, url, {
      onTraffic: (frame) => this.frames.onFrame(frame),
      onOpen: (me) => this.frames.opened(me),
    });
    this.sender = new SimSender(ctx, (op, args) => this.request(op, args));
    this.frames = new SimFrames(ctx, {
      learn: (f) => this.sender.learn(f),
      ack: (f) => this.sender.onAck(f),
      onError: (err) => this.connection.onError(err),
    });
    this.ops = simOps({
      request: (op, args, errors) =>
        this.request(op, args).catch((err: unknown) => {
          const own = errors?.[(err as { simCode?: string }).simCode ?? ""];
          throw own ? own() : err;
        }),
      ctx,
      ...this.frames.hooks,
    });
  }

  private request(op: string, args: unknown): Promise<unknown> {
    return this.connection.requests.request(op, args);
  }

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

  async requestPairingCode(phone: string, method?: "sms" | "voice"): Promise<string> {
    const { code } = (await this.request("pairing-code", { phone, method })) as { code: string };
    return code;
  }

  passkeyChallenge(): Promise<PasskeyChallenge> {
    return this.request("passkey-challenge", {}) as Promise<PasskeyChallenge>;
  }

  async submitPasskey(assertion: PasskeyAssertion): Promise<void> {
    await this.request("passkey", assertion);
  }

  passkeyConfirmation(): Promise<{ code: string }> {
    return this.request("passkey-confirmation", {}) as Promise<{ code: string }>;
  }

  async confirmPasskey(): Promise<void> {
    await this.request("passkey-confirm", {});
  }

  async account(): Promise<AccountInfo> {
    if (!this.connection.isOpen) throw this.connection.notOpen();
    return (await this.request("me", {})) as AccountInfo;
  }

  capping(): Promise<Capping> {
    return this.request("capping", {}) as Promise<Capping>;
  }

  timelock(): Promise<Timelock> {
    return this.request("timelock", {}) as Promise<Timelock>;
  }

  send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    return this.sender.send(chatId, content, options);
  }

  checkExists(phone: string): Promise<ExistsResult> {
    return this.sender.checkExists(phone);
  }

  markRead(chatId: string, messageIds: string[]): Promise<void> {
    return this.sender.markRead(chatId, messageIds);
  }

  async chatTitle(chatId: string): Promise<string | null> {
    if (!chatId.endsWith("@g.us")) return null;
    const group = (await this.request("group-metadata", { groupId: chatId })) as { subject?: string };
    return group.subject ?? null;
  }

  async picture(chatId: string): Promise<Picture | null> {
    const r = (await this.request("picture", { chatId })) as { picture: Picture | null };
    return r.picture;
  }

  async presence(state: PresenceState, chatId?: string): Promise<void> {
    await this.request("presence", { state, ...(chatId ? { to: chatId } : {}) });
  }
}
