import {
  ApiError,
  type FinalQueueStatus,
  type Instance,
  invalid,
  type QueueItem,
  type QueueSettings,
  type QueueSettingsPatch,
  type SendRequest,
} from "@gw/contracts";
import { type Platform, ReplicaCache, randomBase32, ulidTime } from "@gw/platform";
import type { Client } from "@temporalio/client";
import { textLengthOf } from "./compose/index.ts";
import { resolveQueuedFiles, stashQueuedFiles } from "./queue-files.ts";
import { publicItem, queueEventPayload, type StoredQueueItem } from "./queue-item.ts";
import { QueueStore } from "./queue-store.ts";

/** Workflow type and signal names of workflows/src/queue.ts (the gateway does not bundle workflow code). */
export const QUEUE_WORKFLOW = "instanceQueue";
export const WAKE_SIGNAL = "wake";
export const CANCEL_ITEMS_SIGNAL = "cancelItems";
export const queueWorkflowId = (instanceId: string) => `queue-${instanceId}`;

/** `qm_` + a ULID-like 26 characters: time-ordered, unique. */
export function newQueueId(now = Date.now()): string {
  return `qm_${ulidTime(now)}${randomBase32(16)}`;
}

/** The network message id of a queue item's send: the same on every attempt (never twice). */
export function queueNetworkId(queueId: string): string {
  return `3EB0${queueId.slice(3).toUpperCase()}`;
}

type Source = Pick<Instance, "id" | "provider" | "phone" | "pushName" | "settings">;

/**
 * The send queue as the gateway and the worker use it: Redis state (QueueStore) plus the
 * instance's Temporal workflow, started with signal-with-start when an enqueue finds it not
 * running, and told about cancellations and resumes by signals.
 */
export class SendQueue {
  readonly store: QueueStore;
  private readonly modes: ReplicaCache<"direct" | "queue">;

  /** Told when a queue workflow could not be started (the reconciler will): for logs. */
  onStartFailure?: (instanceId: string, err: unknown) => void;

  constructor(
    private readonly platform: Platform,
    private readonly temporal: () => Promise<Client>,
    private readonly taskQueue: string,
  ) {
    this.store = new QueueStore(platform.redis, platform.keys, platform.invalidations, platform.shards);
    this.modes = new ReplicaCache(platform.config.INSTANCE_CACHE_MS);
    platform.invalidations.on("queue", (instanceId) => this.modes.forget(instanceId));
  }

  /**
   * The queue mode, read on every send without an `X-Queue` header: kept per replica like the
   * instance record (`INSTANCE_CACHE_MS`). A settings change publishes an invalidation that every
   * replica applies at once; the TTL bounds staleness if one is missed while reconnecting.
   */
  mode(instanceId: string): Promise<"direct" | "queue"> {
    return this.modes.get(instanceId, () => this.store.mode(instanceId));
  }

  /**
   * The request of an item as it was queued, its files read back from the media store: what the
   * send activity sends. An object that is gone is `not_found` (the item fails with it).
   */
  requestOf(instanceId: string, item: Pick<StoredQueueItem, "request">): Promise<SendRequest> {
    return resolveQueuedFiles(this.platform.media, instanceId, item.request);
  }

  /** The store announces the change: this replica's cached mode is forgotten before it answers. */
  updateSettings(instanceId: string, patch: QueueSettingsPatch): Promise<QueueSettings> {
    return this.store.updateSettings(instanceId, patch);
  }

  /**
   * `queueId`: given under an Idempotency-Key (IdempotencyStore.queueId): an id already queued
   * answers that item. Inline files go to the media store first (queue-files.ts): the item keeps
   * references; a store that fails queues nothing.
   */
  async enqueue(instance: Source, req: SendRequest, chatId: string, queueId = newQueueId()): Promise<QueueItem> {
    const body = req.body as { delayMessage?: number; delayTyping?: number };
    const request = await stashQueuedFiles(this.platform.media, instance.id, req);
    const r = await this.store.enqueue(instance.id, {
      queueId,
      now: Date.now(),
      route: `POST /messages/${req.route}`,
      chatId,
      request,
      ownDelayMs: body.delayMessage === undefined ? null : Math.round(body.delayMessage * 1000),
      ownTypingMs: body.delayTyping === undefined ? null : Math.round(body.delayTyping * 1000),
      textLength: textLengthOf(req),
    });
    if (!r.ok) throw new ApiError("queue_full", undefined, undefined, 5);
    // Accepted: the item is safe in Redis. If Temporal cannot be reached now, the worker's
    // reconciler starts the queue within 30 s — an error here would make clients send twice.
    if (r.mustStart) await this.startOrLeave(instance.id);
    return publicItem(r.item);
  }

  /**
   * Starts the instance's workflow, or wakes it if it runs. On failure the running marker is
   * cleared again so that the next enqueue (or the worker's reconciler) tries once more: the
   * item itself is already safe in Redis.
   */
  async start(instanceId: string): Promise<void> {
    try {
      const client = await this.temporal();
      await client.workflow.signalWithStart(QUEUE_WORKFLOW, {
        workflowId: queueWorkflowId(instanceId),
        taskQueue: this.taskQueue,
        args: [{ instanceId }],
        signal: WAKE_SIGNAL,
        signalArgs: [],
      });
    } catch (err) {
      await this.platform.redis.del(this.platform.keys.queueRunning(instanceId)).catch(() => {});
      throw err;
    }
  }

  /** {@link start}, leaving a failure to the reconciler (logged, not thrown). */
  private async startOrLeave(instanceId: string): Promise<void> {
    await this.start(instanceId).catch((err) => this.onStartFailure?.(instanceId, err));
  }

  private async signal(instanceId: string, name: string, args: unknown[]): Promise<void> {
    try {
      const client = await this.temporal();
      await client.workflow.getHandle(queueWorkflowId(instanceId)).signal(name, ...args);
    } catch {
      // Not running (nothing to interrupt) or Temporal unreachable: the item's Redis status
      // already decides, the workflow checks it before every send.
    }
  }

  async cancel(instance: Source, queueId: string): Promise<QueueItem> {
    const item = await this.store.get(instance.id, queueId);
    if (!item) throw new ApiError("not_found", "Item da fila não encontrado.");
    const done = await this.store.finish(instance.id, queueId, "cancelled", { onlyFrom: "queued" });
    if (!done) {
      const now = await this.store.get(instance.id, queueId);
      throw invalid(
        "queueId",
        `o item está ${now?.status ?? item.status}`,
        "Só itens ainda na fila podem ser cancelados.",
      );
    }
    await this.signal(instance.id, CANCEL_ITEMS_SIGNAL, [{ queueIds: [queueId] }]);
    const cancelled = (await this.store.get(instance.id, queueId))!;
    await this.publishFinal(instance, cancelled);
    return publicItem(cancelled);
  }

  async cancelAll(instance: Source): Promise<number> {
    const ids = await this.store.cancelAll(instance.id);
    if (ids.length) await this.signal(instance.id, CANCEL_ITEMS_SIGNAL, [{ all: true }]);
    for (let i = 0; i < ids.length; i += 200) {
      const items = await Promise.all(ids.slice(i, i + 200).map((id) => this.store.get(instance.id, id)));
      await Promise.all(items.map((it) => (it ? this.publishFinal(instance, it) : null)));
    }
    return ids.length;
  }

  async pause(instanceId: string): Promise<QueueSettings> {
    return (await this.store.setPaused(instanceId, true)).settings;
  }

  async resume(instanceId: string): Promise<QueueSettings> {
    const { settings, mustStart } = await this.store.setPaused(instanceId, false);
    if (mustStart) await this.startOrLeave(instanceId);
    return settings;
  }

  /**
   * `queue.sent` (with the message id) or `queue.failed` (failed, expired, cancelled), with the
   * moment it finished as `timestamp` (unix seconds), then the item is marked announced: a step
   * retried after a crash publishes what was not (at least once).
   */
  async publishFinal(instance: Source, item: StoredQueueItem): Promise<void> {
    const status = item.status as FinalQueueStatus;
    await this.platform.events.publish(
      instance,
      status === "sent" ? "queue.sent" : "queue.failed",
      queueEventPayload(item) as unknown as Record<string, unknown>,
    );
    await this.store.markAnnounced(instance.id, item.id);
  }
}
