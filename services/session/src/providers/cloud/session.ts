import {
  type AccountInfo,
  ApiError,
  chatKindRule,
  invalid,
  type OutboundContent,
  type PresenceState,
  parseMessageId,
  type SendOptions,
  type SendResult,
  type SessionOpHandlers,
  type StatusCause,
} from "@gw/contracts";
import type { Platform } from "@gw/platform";
import { backoffMs } from "../backoff.ts";
import type { Picture, ProviderContext, ProviderFactory, ProviderSession } from "../contract.ts";
import { businessOps, type GraphPhoneNumber, PHONE_FIELDS } from "./business.ts";
import { isAuthFailure, isTransient } from "./errors.ts";
import { GraphError } from "./graph.ts";
import { chatOfUser, networkIdOf, wamidOf } from "./ids.ts";
import { CloudLink } from "./link.ts";
import { CloudMedia } from "./media.ts";
import { graphMessage } from "./outbound.ts";
import { templateOps } from "./templates.ts";

/** A send under a client-given id answers what the first send answered, for a week. */
const ALIAS_TTL_S = 7 * 86_400;

const notHere = (what: string) =>
  new ApiError("not_supported_by_provider", `${what} não existe em instâncias do gateway oficial.`);

/**
 * The `cloud` provider (docs/official.md): an official-gateway instance is a business number on
 * the operator's Cloud API. Nothing stays connected: `start` checks the credentials against the
 * operator (the number's node) and the instance is WORKING while the operator accepts them; every
 * call is HTTP out. Inbound webhooks are verified at the gateway and processed by the worker
 * (official/inbound), not here: this session only sends and reads.
 */
export function createCloudProvider(platform: Platform, opts: { timeoutMs: number }): ProviderFactory {
  return (ctx) => new CloudSession(ctx, platform, opts.timeoutMs);
}

class CloudSession implements ProviderSession {
  readonly provider = "cloud" as const;
  readonly ops: SessionOpHandlers;
  /** The operator's `sent` status (with pricing) is the ack: none is announced at acceptance. */
  readonly reportsSentAck = true;
  private readonly link: CloudLink;
  private readonly media: CloudMedia;
  private wanted = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private me: AccountInfo | null = null;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly platform: Platform,
    timeoutMs: number,
  ) {
    this.link = new CloudLink(ctx, timeoutMs);
    this.media = new CloudMedia(platform.redis, platform.keys, ctx.instance.id);
    this.ops = { ...businessOps(this.link), ...templateOps(this.link) };
  }

  // --- connection ---------------------------------------------------------------------------

  async start(): Promise<void> {
    this.wanted = true;
    this.ctx.emit({ type: "status", status: "STARTING" });
    await this.check();
  }

  /** The credentials against the operator: WORKING, FAILED (refused), or again later (unreachable). */
  private async check(): Promise<void> {
    if (!this.wanted) return;
    const id = this.ctx.instance.id;
    const creds = await this.platform.cloud.get(id);
    if (!this.wanted) return;
    if (!creds) {
      return this.fail({
        reason: "missing_credentials",
        detail: "set `cloud` with PATCH /v1/admin/instances/{instanceId}",
      });
    }
    try {
      const n = await this.link.graph.get<GraphPhoneNumber>(this.link.targetOf(creds), creds.phoneNumberId, {
        fields: PHONE_FIELDS,
      });
      if (!this.wanted) return;
      const phone = (n.display_phone_number ?? "").replace(/\D/g, "");
      if (phone) await this.platform.cloud.learnDisplayPhone(id, phone);
      this.me = { phone, lid: "", pushName: n.verified_name ?? "" };
      this.attempt = 0;
      this.link.open(creds);
      this.ctx.emit({ type: "account", account: this.me });
      this.ctx.emit({ type: "status", status: "WORKING" });
    } catch (err) {
      if (!this.wanted) return;
      if (isAuthFailure(err)) return this.fail({ reason: "operator_auth", detail: err.message });
      if (err instanceof GraphError && !isTransient(err)) {
        const what = err.code === null ? `HTTP ${err.status}` : `código ${err.code}`;
        return this.fail({ reason: "operator_refused", detail: `${what}: ${err.message}` });
      }
      // Unreachable, failing on its side (5xx, a proxy's error page) or rate limiting: stay
      // STARTING and check again, as a lost connection would.
      this.ctx.log.warn({ err }, "operator unreachable or failing; checking again");
      const delay = backoffMs(this.attempt++);
      this.ctx.emit({
        type: "status",
        status: "STARTING",
        cause: {
          reason: "operator_unavailable",
          detail: (err as Error)?.message ?? String(err),
          retryAt: Date.now() + delay,
        },
      });
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.check().catch((e) => this.ctx.log.error({ err: e }, "credentials check failed"));
      }, delay);
    }
  }

  private fail(cause: StatusCause): void {
    this.wanted = false;
    this.link.close();
    this.ctx.emit({ type: "status", status: "FAILED", cause });
  }

  async stop(): Promise<void> {
    this.wanted = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.link.close();
  }

  /** Nothing to unpair on the operator: the number stays registered, the credentials are kept. */
  async logout(): Promise<void> {
    await this.stop();
  }

  // --- pairing and account: none on this kind --------------------------------------------------

  currentQr(): string | null {
    return null;
  }
  async requestPairingCode(): Promise<string> {
    throw notHere("Pareamento");
  }
  async passkeyChallenge(): Promise<never> {
    throw notHere("Pareamento por passkey");
  }
  async submitPasskey(): Promise<void> {
    throw notHere("Pareamento por passkey");
  }
  async passkeyConfirmation(): Promise<never> {
    throw notHere("Pareamento por passkey");
  }
  async confirmPasskey(): Promise<void> {
    throw notHere("Pareamento por passkey");
  }

  async account(): Promise<AccountInfo> {
    await this.link.ready();
    return this.me ?? { phone: "", lid: "", pushName: "" };
  }
  async capping(): Promise<never> {
    throw notHere("A cota de novas conversas");
  }
  async timelock(): Promise<never> {
    throw notHere("A restrição de contatos");
  }
  async checkExists(): Promise<never> {
    throw notHere("A verificação de números");
  }
  async picture(): Promise<Picture | null> {
    return null;
  }

  // --- messaging -----------------------------------------------------------------------------

  async send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    requireCustomerChat(chatId);
    const { creds, target } = await this.link.ready();
    const id = this.ctx.instance.id;
    const aliasKey = options.id ? this.platform.keys.cloudSeen(id, `alias:${options.id}`) : null;
    if (aliasKey) {
      // The operator chooses message ids: a send under an id already used answers that send.
      const prior = await this.platform.redis.get(aliasKey);
      if (prior) return JSON.parse(prior) as SendResult;
    }
    if (content.type !== "template" && !(await this.platform.windows.lastInbound(id, chatId))) {
      throw new ApiError(
        "network_rejected",
        "Fora da janela de 24 h: o cliente não escreveu nas últimas 24 horas. Só templates podem ser enviados (/messages/template).",
        { chatId: "fora da janela de 24 h da conversa; use /messages/template" },
      );
    }
    const body = await graphMessage(chatId, content, options, (media) =>
      this.link.call("media", () => this.media.upload(target, creds.phoneNumberId, media), "file"),
    );
    const res = await this.link.call(
      "send",
      () =>
        this.link.graph.post<{
          contacts?: { input?: string; wa_id?: string; user_id?: string }[];
          messages?: { id: string }[];
        }>(target, `${creds.phoneNumberId}/messages`, body),
      fieldOf(content),
    );
    const wamid = res.messages?.[0]?.id;
    if (!wamid) throw new ApiError("network_error", "O operador aceitou o envio sem dar o id da mensagem.");
    const contact = res.contacts?.[0];
    const result: SendResult = {
      id: networkIdOf(wamid),
      // The number as the operator registered it (a Brazilian number may gain or lose its ninth digit).
      chatId: chatOfUser(contact?.wa_id, chatId.endsWith("@bsuid") ? contact?.user_id : null) ?? chatId,
      timestamp: Math.floor(Date.now() / 1000),
    };
    if (aliasKey) await this.platform.redis.set(aliasKey, JSON.stringify(result), "EX", ALIAS_TTL_S);
    return result;
  }

  /** Marks the given messages read, or the customer's last one (spec 4.4 "official gateway"). */
  async markRead(chatId: string, messageIds: string[]): Promise<void> {
    const { creds, target } = await this.link.ready();
    let ids = messageIds.map((v) => parseMessageId(v)?.id ?? v);
    if (ids.length === 0) {
      const last = await this.platform.windows.lastInbound(this.ctx.instance.id, chatId);
      if (!last) return;
      ids = [last.id];
    }
    for (const id of ids) {
      await this.link.call(
        "seen",
        () =>
          this.link.graph.post(target, `${creds.phoneNumberId}/messages`, {
            messaging_product: "whatsapp",
            status: "read",
            message_id: wamidOf(id),
          }),
        "messageId",
      );
    }
  }

  /**
   * Typing: the operator shows it as the answer to the customer's last message, within 24 h of it,
   * for up to 25 s or until the reply (spec 4.4). Stopping is the reply itself: nothing to call.
   */
  async presence(state: PresenceState, chatId?: string): Promise<void> {
    if (state !== "composing" && state !== "recording") return;
    const { creds, target } = await this.link.ready();
    const last = chatId ? await this.platform.windows.lastInbound(this.ctx.instance.id, chatId) : null;
    if (!last) {
      throw new ApiError(
        "network_rejected",
        "O indicador de digitação só existe em resposta a uma mensagem recebida nas últimas 24 horas.",
        { chatId: "nenhuma mensagem do cliente nas últimas 24 h nesta conversa" },
      );
    }
    await this.link.call("typing", () =>
      this.link.graph.post(target, `${creds.phoneNumberId}/messages`, {
        messaging_product: "whatsapp",
        status: "read",
        message_id: wamidOf(last.id),
        typing_indicator: { type: "text" },
      }),
    );
  }

  async downloadMedia(networkId: string): Promise<Picture | null> {
    const { target } = await this.link.ready();
    const raw = await this.platform.messages.getRaw(this.ctx.instance.id, networkId);
    return this.link.call("media.download", () => this.media.download(target, raw));
  }
}

/** The operator reaches customers only: a number or a business-scoped user id. */
function requireCustomerChat(chatId: string): void {
  const why = chatKindRule("official", chatId);
  if (why) throw invalid("chatId", why);
}

/** The request field an operator's parameter error is about, by content. */
function fieldOf(content: OutboundContent): string {
  switch (content.type) {
    case "template":
      return "template";
    case "list":
      return "message";
    case "buttons":
      return "buttons";
    case "reaction":
      return "messageId";
    case "text":
      return "text";
    default:
      return "media" in content ? "file" : "body";
  }
}
