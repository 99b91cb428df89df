import {
  applyNumberRules,
  formatMessageId,
  type Instance,
  requireWorking,
  type SendRequest,
  type SendResponse,
} from "@gw/contracts";
import type { Config, Platform } from "@gw/platform";
import type { SessionDirectory } from "@gw/session";
import { ChatResolver } from "./chat-resolution.ts";
import { type ComposeDeps, compose, precheck } from "./compose/index.ts";
import { keepMedia } from "./media/index.ts";

export type SendTarget = Pick<Instance, "id" | "kind" | "connectionStatus" | "statusReason">;

/**
 * One send, start to end: compose (media fetched and converted), resolve the chat (ninth
 * digit), ask the owning session pod, answer spec 2.6. Used by the immediate routes and by the
 * queue's send activity; the pod records the message and publishes its events.
 */
export class Sender {
  private readonly resolver = new ChatResolver();
  readonly composeDeps: ComposeDeps;

  constructor(
    private readonly platform: Platform,
    config: Config,
    private readonly sessions: SessionDirectory,
  ) {
    this.composeDeps = {
      messages: platform.messages,
      media: {
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        maxBytes: config.MEDIA_MAX_BYTES,
        timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
      },
      convert: { timeoutMs: config.MEDIA_CONVERT_TIMEOUT_MS },
    };
  }

  /** Refuses now what this send would certainly fail on later (a queued send, before its 202). */
  precheck(instance: Pick<Instance, "id" | "kind">, req: SendRequest): Promise<void> {
    return precheck(instance, req, this.composeDeps);
  }

  /** A chat as the instance's phone-number apps want its number (other chats as they are). */
  async withNumberRules(instanceId: string, chatId: string): Promise<{ chatId: string; brazil: string }> {
    const rules = await this.platform.apps.numberRules(instanceId);
    const m = /^(\d+)@c\.us$/.exec(chatId);
    return { chatId: m ? `${applyNumberRules(m[1]!, rules)}@c.us` : chatId, brazil: rules.brazil };
  }

  /**
   * `networkId`: the message id to give the network when the body has none (queue items and
   * Idempotency-Key sends): a retry with the same id is delivered once.
   */
  async send(instance: SendTarget, req: SendRequest, opts: { networkId?: string } = {}): Promise<SendResponse> {
    requireWorking(instance); // 503 while STARTING, 422 when someone must act (contracts failures.ts)
    const composed = await compose(instance, req, this.composeDeps);
    const owner = await this.sessions.owner(instance.id);
    // The instance's phone-number apps first (docs/apps.md); then the ninth digit through the
    // network's number check, unless the operator resolves it itself (its answer's `wa_id` is the
    // registered form) or the Brazilian app forces a form.
    const { chatId: numbered, brazil } = await this.withNumberRules(instance.id, composed.chatId);
    const chatId =
      instance.kind === "official" || brazil !== "auto"
        ? numbered
        : await this.resolver.resolve(owner, instance.id, numbered);
    const options = { ...composed.options };
    if (!options.id && opts.networkId) {
      options.id = opts.networkId;
      options.derivedId = true;
    }
    // The bytes in the media store before the network sends them (media/keep.ts says why). A
    // store that fails does not fail the send: the pod's record tries again and logs it.
    await keepMedia(this.platform.media, instance.id, composed.content).catch(() => {});
    const result = await owner.send(instance.id, chatId, composed.content, options);
    const resultChat = result.chatId || chatId;
    return {
      chatId: resultChat,
      id: formatMessageId({ fromMe: true, chatId: resultChat, id: result.id }),
      status: "sent",
    };
  }
}
