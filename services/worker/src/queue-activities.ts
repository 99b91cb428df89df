import { ApiError } from "@gw/contracts";
import type { Logger, Platform } from "@gw/platform";
import { queueNetworkId, type Sending } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import type { NextQueueItem, QueueActivities, SendAttempt } from "@gw/workflows/queue-activities";

/** Errors after which the item waits for the number to be back (until its TTL). */
const WAIT_CODES = new Set(["instance_not_connected", "network_unavailable", "network_timeout"]);

/**
 * Whether the item should wait and be tried again rather than fail: the number is away, or the
 * network refused for now (`network_error` with a Retry-After: Baileys' rate limit; `rate_limited`:
 * the operator's throughput or pair limits on official instances). The retry gives the network the
 * same message id, so it is delivered once whatever the first attempt did.
 */
const waits = (err: ApiError) =>
  WAIT_CODES.has(err.code) ||
  ((err.code === "network_error" || err.code === "rate_limited") && err.retryAfter !== undefined);

/**
 * The send queue's activities (workflows/src/queue.ts): every one idempotent on the item's
 * Redis status, and the send itself on a network message id derived from the queue id.
 */
export function createQueueActivities(deps: {
  platform: Platform;
  sending: Sending;
  sessions: SessionDirectory;
  log: Logger;
  /** Seconds between a sent item's planned time and the network's answer (the worker's metrics). */
  scheduleError?: (seconds: number) => void;
}): QueueActivities {
  const { platform, sending, sessions, log } = deps;
  const store = sending.queue.store;

  const publishFinal = async (instanceId: string, queueId: string) => {
    const [instance, item] = await Promise.all([
      platform.instanceCache.get(instanceId),
      store.get(instanceId, queueId),
    ]);
    if (instance && item) await sending.queue.publishFinal(instance, item);
  };

  return {
    async nextQueueItem({ instanceId }): Promise<NextQueueItem> {
      for (;;) {
        const r = await store.next(instanceId);
        for (const id of r.expired) await publishFinal(instanceId, id);
        if (r.kind === "busy") continue;
        if (r.kind !== "item") return { kind: r.kind };
        const settings = await store.settings(instanceId);
        const { item } = r;
        return {
          kind: "item",
          queueId: item.id,
          delayMs: item.ownDelayMs,
          typingMs: item.ownTypingMs,
          delayMin: settings.delayMin,
          delayMax: settings.delayMax,
          textLength: item.textLength,
          expiresAt: Date.parse(item.expiresAt),
        };
      }
    },

    async planQueueItem({ instanceId, queueId, delayMs, typingMs, plannedAt }) {
      return store.plan(instanceId, queueId, delayMs, typingMs, plannedAt);
    },

    async showTyping({ instanceId, queueId }) {
      try {
        const item = await store.get(instanceId, queueId);
        // A paused queue shows nothing to the contact (its send stops at beginSend), nor does
        // an item cancelled while it waited out its delay.
        if (item?.status !== "queued" || (await store.settings(instanceId)).paused) return;
        const instance = await platform.instances.get(instanceId);
        if (instance?.connectionStatus !== "WORKING") return;
        const owner = await sessions.ownerIfAny(instanceId);
        const state = item.request.route === "voice" ? "recording" : "composing";
        await owner?.presence(instanceId, state, item.chatId);
      } catch (err) {
        log.debug({ err, instanceId, queueId }, "typing indicator not shown");
      }
    },

    async sendQueueItem({ instanceId, queueId }): Promise<SendAttempt> {
      const item = await store.get(instanceId, queueId);
      if (!item) return { kind: "gone" };
      const instance = await platform.instances.get(instanceId);
      if (!instance) {
        await store.finish(instanceId, queueId, "failed", { error: "instância removida" });
        return { kind: "failed", error: "instância removida" };
      }
      const begun = await store.beginSend(instanceId, queueId);
      if (begun !== "ok") {
        // Ended by an earlier run of this step that died before its event went out: publish it.
        if (begun === "gone" && !item.announced && (item.status === "sent" || item.status === "failed")) {
          await sending.queue.publishFinal(instance, item);
          return item.status === "sent" ? { kind: "sent", messageId: item.messageId ?? "" } : { kind: "gone" };
        }
        return { kind: begun };
      }
      let messageId: string;
      // No free-trial charge here: the item's unit was taken at its enqueue, keyed by the queue id
      // (TrialLimiter), so a retry, a new worker or a send after a reconnection counts nothing.
      try {
        // Its files back from the media store: one that is gone fails the item (`not_found`, below).
        const request = await sending.queue.requestOf(instanceId, item);
        const res = await sending.sender.send(instance, request, { networkId: queueNetworkId(queueId) });
        messageId = res.id;
        if (item.plannedAt !== null) deps.scheduleError?.(Math.abs(Date.now() - item.plannedAt) / 1000);
      } catch (err) {
        if (!(err instanceof ApiError)) {
          // Our own infrastructure (Redis, a pod's RPC): Temporal retries the activity.
          await store.requeue(instanceId, queueId, String(err)).catch(() => {});
          throw err;
        }
        const error = err.details ? `${err.message} ${JSON.stringify(err.details)}` : err.message;
        if (waits(err)) {
          await store.requeue(instanceId, queueId, `${err.code}: ${err.message}`);
          return { kind: "disconnected", error: err.code };
        }
        await store.finish(instanceId, queueId, "failed", { error: `${err.code}: ${error}` });
        await sending.queue.publishFinal(instance, (await store.get(instanceId, queueId))!);
        return { kind: "failed", error: err.code };
      }
      await store.finish(instanceId, queueId, "sent", { messageId });
      const sent = await store.get(instanceId, queueId);
      if (sent) await sending.queue.publishFinal(instance, sent);
      return { kind: "sent", messageId };
    },

    async expireQueueItem({ instanceId, queueId, error }) {
      if (await store.finish(instanceId, queueId, "expired", { error, onlyFrom: "queued" })) {
        await publishFinal(instanceId, queueId);
      }
    },
  };
}
