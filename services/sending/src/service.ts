import {
  chatOf,
  formatMessageId,
  type Instance,
  invalid,
  type QueueItem,
  type ReactionBody,
  type reactionResponseSchema,
  requireChat,
  requireWorking,
  type SendRequest,
  type SendResponse,
} from "@gw/contracts";
import type { MessageStore } from "@gw/platform";
import type { SessionDirectory } from "@gw/session";
import type { z } from "zod";
import { resolveRef } from "./compose/index.ts";
import { type Answer, IdempotencyStore } from "./idempotency.ts";
import { newQueueId, type SendQueue } from "./queue.ts";
import type { Sender } from "./sender.ts";
import type { TrialLimiter } from "./trial.ts";

/** How the client asked for a send (its headers). */
export interface SubmitOptions {
  /**
   * `X-Queue`: true queues the send, false sends it now; absent (undefined), `delayMessage` or
   * `delayTyping` imply the queue, else the instance's queue mode decides.
   */
  queue?: boolean | undefined;
  /** `Idempotency-Key`: the same key within 24 h answers the first answer and never sends twice. */
  idempotencyKey?: string | undefined;
}

/** A vote's answer (spec 4.4): "success", beside the send response's fields. */
export type VoteResponse = SendResponse & { success: true };

/** Sent now: 201 with the send response. Queued: 202 with the queue item (its `id` is the queue id). */
export type Submitted = { status: 201; body: SendResponse | VoteResponse } | { status: 202; body: QueueItem };

export interface Reacted {
  status: 200;
  body: z.infer<typeof reactionResponseSchema>;
}

/**
 * A key's run, as IdempotencyStore.run hands it over; none without a key. `origin`: the
 * Idempotency-Key's run (kept by a takeover), so that a retry after a gateway died past the
 * enqueue finds its item instead of queuing a second one.
 */
type Attempt = { origin: string } | undefined;

export interface SendServiceDeps {
  sender: Sender;
  queue: SendQueue;
  idempotency: IdempotencyStore;
  trial: TrialLimiter;
  messages: MessageStore;
  sessions: SessionDirectory;
}

/**
 * The send routes' one entry (spec 4.4, 4.10, 8): queue or send now, the free trial's unit taken
 * (and given back when nothing was accepted), `Idempotency-Key` answered. Reading the request's
 * headers is the caller's; everything they decide is here.
 */
export class SendService {
  constructor(private readonly deps: SendServiceDeps) {}

  /** A validated send request: 201 when sent now, 202 when queued. */
  async submit(instance: Instance, req: SendRequest, options: SubmitOptions = {}): Promise<Submitted> {
    const explicit = queueChoice(req, options.queue);
    const key = options.idempotencyKey;
    return this.once(instance, key, req.route, req.body, async (attempt): Promise<Submitted> => {
      const queued = explicit ?? (await this.deps.queue.mode(instance.id)) === "queue";
      return queued ? this.enqueue(instance, req, attempt) : this.sendNow(instance, req, key, attempt);
    });
  }

  /**
   * A reaction (an empty one removes it). Like every send: Idempotency-Key answers a retry with the
   * first answer (the network id derives from the key, so even a retry after a timeout reacts
   * once), and a reaction is a message for the free trial's daily count. Never queued.
   */
  async react(
    instance: Instance,
    body: ReactionBody,
    options: Pick<SubmitOptions, "idempotencyKey"> = {},
  ): Promise<Reacted> {
    const key = options.idempotencyKey;
    return this.once(instance, key, "reaction", body, async (attempt): Promise<Reacted> => {
      const ref = await resolveRef(instance.id, body.messageId, "messageId", this.deps.messages);
      const chatId = ref.chatId ?? chatOf(body);
      if (!chatId) throw invalid("chatId", "informe o chatId");
      requireWorking(instance); // 503 while STARTING, 422 when someone must act (contracts failures.ts)
      const owner = await this.deps.sessions.owner(instance.id);
      return this.charged(instance, attempt?.origin, async () => {
        const networkId = key ? IdempotencyStore.networkId(instance.id, key) : undefined;
        const result = await owner.send(
          instance.id,
          chatId,
          { type: "reaction", targetId: ref.id, emoji: body.reaction },
          networkId ? { id: networkId, derivedId: true } : {},
        );
        const resultChat = result.chatId || chatId;
        const answer = {
          chatId: resultChat,
          id: formatMessageId({ fromMe: true, chatId: resultChat, id: result.id }),
          status: "ok" as const,
        };
        return { status: 200, body: answer };
      });
    });
  }

  /** `run` once per Idempotency-Key (a retry answers the first answer); without a key, every time. */
  private once<A extends Answer>(
    instance: Pick<Instance, "id">,
    key: string | undefined,
    route: string,
    body: unknown,
    run: (attempt: Attempt) => Promise<A>,
  ): Promise<A> {
    return key
      ? this.deps.idempotency.run<A>(instance.id, key, IdempotencyStore.fingerprint(route, body), run)
      : run(undefined);
  }

  /** One unit of the free trial's day taken under `charge` for `fn`, given back when `fn` fails. */
  private async charged<T>(instance: Instance, charge: string | undefined, fn: () => Promise<T>): Promise<T> {
    const giveBack = await this.deps.trial.take(instance, { charge });
    try {
      return await fn();
    } catch (err) {
      await giveBack?.();
      throw err;
    }
  }

  private async enqueue(instance: Instance, req: SendRequest, attempt: Attempt): Promise<Submitted> {
    // What the send would certainly fail on is refused now, not after a 202 as a failed item.
    await this.deps.sender.precheck(instance, req);
    const chatId = await this.queuedChat(instance, req);
    // The trial unit is the item's, charged by its queue id (under a key, the run's: a takeover
    // finds the item and the unit its first attempt made); the worker never charges again.
    const queueId = attempt ? IdempotencyStore.queueId(instance.id, attempt.origin) : newQueueId();
    // Given back on queue_full: nothing was accepted.
    const item = await this.charged(instance, queueId, () => this.deps.queue.enqueue(instance, req, chatId, queueId));
    return { status: 202, body: item };
  }

  private async sendNow(
    instance: Instance,
    req: SendRequest,
    key: string | undefined,
    attempt: Attempt,
  ): Promise<Submitted> {
    return this.charged(instance, attempt?.origin, async () => {
      const networkId = key ? IdempotencyStore.networkId(instance.id, key) : undefined;
      const result = await this.deps.sender.send(instance, req, networkId ? { networkId } : {});
      // Spec 4.4: a vote answers "success"; it also gets the send response's fields.
      return { status: 201, body: req.route === "poll/vote" ? { success: true as const, ...result } : result };
    });
  }

  /** The chat a queued item shows: the body's, or the one of the message a vote/forward names. */
  private async queuedChat(instance: Pick<Instance, "id">, req: SendRequest): Promise<string> {
    if (req.route === "poll/vote") {
      const given = chatOf(req.body);
      if (given) return given;
      const poll = await resolveRef(instance.id, req.body.pollMessageId, "pollMessageId", this.deps.messages);
      if (!poll.chatId) {
        throw invalid("chatId", "informe o chatId");
      }
      return poll.chatId;
    }
    // Shown as it will be sent: the instance's phone-number apps applied.
    return (await this.deps.sender.withNumberRules(instance.id, requireChat(req.body))).chatId;
  }
}

/**
 * Whether the send is queued: `X-Queue` when given (`false` beside a delay is refused), else a
 * delay implies the queue; null leaves it to the instance's queue mode.
 */
function queueChoice(req: SendRequest, header: boolean | undefined): boolean | null {
  const body = req.body;
  const delays = body.delayMessage !== undefined || body.delayTyping !== undefined;
  if (header === undefined) return delays ? true : null;
  if (!header && delays) {
    const field = body.delayMessage !== undefined ? "delayMessage" : "delayTyping";
    throw invalid(field, "não combina com X-Queue: false (envio imediato)");
  }
  return header;
}
