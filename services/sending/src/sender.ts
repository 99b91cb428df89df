import { ApiError, formatMessageId, type Instance, type SendRequest, type SendResponse } from "@gw/contracts";
import type { Config, Platform } from "@gw/platform";
import type { SessionDirectory } from "@gw/session";
import { ChatResolver } from "./chat-resolution.ts";
import { type ComposeDeps, compose, precheck } from "./compose.ts";

export type SendTarget = Pick<Instance, "id" | "kind" | "connectionStatus">;

/**
 * One send, start to end: compose (media fetched and converted), resolve the chat (ninth
 * digit), ask the owning session pod, answer spec 2.6. Used by the immediate routes and by the
 * queue's send activity; the pod records the message and publishes its events.
 */
export class Sender {
  private readonly resolver = new ChatResolver();
  readonly composeDeps: ComposeDeps;

  constructor(
    platform: Platform,
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
    };
  }

  /** Refuses now what this send would certainly fail on later (a queued send, before its 202). */
  precheck(instance: Pick<Instance, "id" | "kind">, req: SendRequest): Promise<void> {
    return precheck(instance, req, this.composeDeps);
  }

  /**
   * `networkId`: the message id to give the network when the body has none (queue items and
   * Idempotency-Key sends): a retry with the same id is delivered once.
   */
  async send(instance: SendTarget, req: SendRequest, opts: { networkId?: string } = {}): Promise<SendResponse> {
    if (instance.connectionStatus !== "WORKING") {
      throw new ApiError("instance_not_connected", undefined, {
        connectionStatus: `esperado WORKING, atual ${instance.connectionStatus}`,
      });
    }
    const composed = await compose(instance, req, this.composeDeps);
    const owner = await this.sessions.owner(instance.id);
    // The operator resolves the ninth digit itself (its answer's `wa_id` is the registered form).
    const chatId =
      instance.kind === "official" ? composed.chatId : await this.resolver.resolve(owner, instance.id, composed.chatId);
    const options = { ...composed.options };
    if (!options.id && opts.networkId) {
      options.id = opts.networkId;
      options.derivedId = true;
    }
    const result = await owner.send(instance.id, chatId, composed.content, options);
    const resultChat = result.chatId || chatId;
    return {
      chatId: resultChat,
      id: formatMessageId({ fromMe: true, chatId: resultChat, id: result.id }),
      status: "sent",
    };
  }
}
