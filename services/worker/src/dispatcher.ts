import { WEBHOOK_RETRY_SCHEDULE_MS } from "@gw/contracts";
import { type Logger, type Platform, ReplicaCache, TurnBatcher, type WebhookTarget } from "@gw/platform";
import { inSpan } from "@gw/platform/telemetry";
import type { WebhookRetryInput } from "@gw/workflows";
import type { Client } from "@temporalio/client";
import { attemptInSpan } from "./delivery-span.ts";
import type { WorkerMetrics } from "./metrics.ts";
import type { Notifier } from "./notifier.ts";
import { afterFailure } from "./outcomes.ts";

export const DISPATCH_GROUP = "dispatch";
const TARGET_CACHE_MS = 2_000;

type Entry = [id: string, fields: string[]];

export interface DispatcherOptions {
  consumer: string;
  concurrency: number;
  taskQueue: string;
  /** Entries another consumer took and did not acknowledge for this long are taken over. */
  claimIdleMs: number;
  /** Tests only: a shortened retry schedule (the real one is asserted in the workflow test). */
  retryScheduleMs?: number[];
  /** The Redis shard whose streams this dispatcher reads (infra/shards/: one dispatcher per shard). */
  shard?: number;
}

/**
 * Reads the event stream (one consumer group over every shard) and delivers each event to the
 * instance's matching webhooks. The first attempt is made here; a failure starts a Temporal
 * workflow (`webhook-retry-<deliveryId>`) that owns the retries. A stream entry is acknowledged
 * only after every delivery of it is recorded as succeeded or its retry workflow exists, so a
 * crash at any point loses nothing: unacknowledged entries are read again (our own) or claimed
 * (a dead consumer's) — deliveries are at least once.
 */
export class Dispatcher {
  private readonly reader: ReturnType<Platform["duplicate"]>;
  /** The shard's own client: its streams are local structures (each shard has them). */
  private readonly redis: Platform["redis"];
  private readonly targets = new ReplicaCache<WebhookTarget[]>(TARGET_CACHE_MS);
  private running = false;
  private loops: Promise<void>[] = [];
  private inFlight = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly active = new Set<Promise<void>>();
  /** Per stream: the entries handled in one loop turn are acknowledged by one XACK. */
  private readonly acks = new Map<string, TurnBatcher<string, void>>();

  constructor(
    private readonly platform: Platform,
    private readonly temporal: Client,
    private readonly notifier: Notifier,
    private readonly log: Logger,
    private readonly opts: DispatcherOptions,
    private readonly metrics?: WorkerMetrics,
    /** Sees every event before its deliveries (the queue reconciler watches reconnections). */
    private readonly onEvent?: (event: string, instanceId: string, body: string) => void,
  ) {
    this.reader = platform.duplicate(`gw-dispatch-${opts.consumer}`, opts.shard ?? 0);
    this.redis = platform.shards.clients[opts.shard ?? 0]!;
  }

  /** Between start() and close(): the dispatcher reads the event stream (worker readiness). */
  get reading(): boolean {
    return this.running;
  }

  private get streams(): string[] {
    return Array.from({ length: this.platform.events.shards }, (_, i) => this.platform.keys.events(i));
  }

  async start(): Promise<void> {
    for (const stream of this.streams) {
      await this.redis.xgroup("CREATE", stream, DISPATCH_GROUP, "0", "MKSTREAM").catch((err: Error) => {
        if (!err.message.includes("BUSYGROUP")) throw err;
      });
    }
    this.platform.invalidations.on("webhooks", (instanceId) => this.targets.forget(instanceId));
    this.running = true;
    this.loops = [this.readLoop(), this.claimLoop()];
  }

  /** Stops reading, lets deliveries in flight finish (their entries are acknowledged). */
  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await Promise.allSettled(this.loops);
    await Promise.allSettled([...this.active]);
  }

  private async readLoop(): Promise<void> {
    // First what this consumer read before and never acknowledged (a restart under the same name).
    let ids = this.streams.map(() => "0");
    while (this.running) {
      let res: [string, Entry[]][] | null;
      try {
        res = (await this.reader.xreadgroup(
          "GROUP",
          DISPATCH_GROUP,
          this.opts.consumer,
          "COUNT",
          200,
          "BLOCK",
          1_000,
          "STREAMS",
          ...this.streams,
          ...ids,
        )) as [string, Entry[]][] | null;
      } catch (err) {
        if (!this.running) return;
        this.log.error({ err }, "dispatcher read failed");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      const backlog = ids[0] === "0";
      let any = false;
      for (const [stream, entries] of res ?? []) {
        for (const entry of entries) {
          any = true;
          await this.schedule(stream, entry);
        }
      }
      if (backlog && !any) ids = this.streams.map(() => ">");
    }
  }

  /** Takes over entries that a consumer (a crashed dispatcher) left unacknowledged. */
  private async claimLoop(): Promise<void> {
    while (this.running) {
      for (const stream of this.streams) {
        try {
          const [, entries] = (await this.redis.xautoclaim(
            stream,
            DISPATCH_GROUP,
            this.opts.consumer,
            this.opts.claimIdleMs,
            "0-0",
            "COUNT",
            100,
          )) as [string, Entry[]];
          for (const entry of entries) if (entry?.[1]) await this.schedule(stream, entry);
        } catch (err) {
          if (this.running) this.log.error({ err }, "dispatcher claim failed");
        }
      }
      await new Promise((r) => setTimeout(r, Math.min(5_000, this.opts.claimIdleMs)));
    }
  }

  /** Bounded concurrency: waits for a slot, then handles the entry in the background. */
  private async schedule(stream: string, [id, fields]: Entry): Promise<void> {
    while (this.inFlight >= this.opts.concurrency) await new Promise<void>((r) => this.waiters.push(r));
    this.inFlight++;
    this.metrics?.inFlight.set(this.inFlight);
    const task = this.handle(stream, id, fields)
      .catch((err) => this.log.error({ err, stream, id }, "dispatch failed; the entry stays pending"))
      .finally(() => {
        this.inFlight--;
        this.metrics?.inFlight.set(this.inFlight);
        this.active.delete(task);
        this.waiters.shift()?.();
      });
    this.active.add(task);
  }

  private async handle(stream: string, id: string, fields: string[]): Promise<void> {
    // The entry carries id, kind and instance beside the envelope: no need to parse the body,
    // which is POSTed byte for byte as the producer wrote it.
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    const body = field("envelope");
    const event = { id: field("id") ?? "", event: field("event") ?? "" };
    const instanceId = field("instanceId");
    if (body && instanceId) {
      this.onEvent?.(event.event, instanceId, body);
      const targets = (await this.targetsOf(instanceId)).filter(
        (t) => t.events.includes("*") || t.events.includes(event.event),
      );
      // Throws (entry left unacknowledged, retried) only when a delivery could not be recorded.
      await Promise.all(targets.map((t) => this.deliver(t, body, event)));
    }
    await this.ack(stream, id);
  }

  /** Acknowledges `id` with the other entries of `stream` handled in this turn (each event of a send is one). */
  private ack(stream: string, id: string): Promise<void> {
    let batcher = this.acks.get(stream);
    if (!batcher) {
      batcher = new TurnBatcher<string, void>(async (ids) => {
        await this.redis.xack(stream, DISPATCH_GROUP, ...ids);
        return ids.map(() => undefined);
      });
      this.acks.set(stream, batcher);
    }
    return batcher.add(id);
  }

  /**
   * One event to one webhook, traced as a `webhook delivery` span: its first attempt and, after a
   * failure, the start of its retry workflow, whose attempts join the same trace (tracing.ts).
   */
  private deliver(target: WebhookTarget, body: string, event: { id: string; event: string }): Promise<void> {
    const attributes = { "gw.webhook_id": target.id, "gw.event": event.event, "gw.event_id": event.id };
    return inSpan("webhook delivery", { attributes }, () => this.deliverFirst(target, body, event));
  }

  private async deliverFirst(target: WebhookTarget, body: string, event: { id: string; event: string }): Promise<void> {
    const { webhooks, config } = this.platform;
    const delivery = webhooks.deliveries.newDelivery(target, body, event);
    const outcome = await attemptInSpan("dispatcher", target, delivery, { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
    this.metrics?.deliveries.inc({ by: "dispatcher", outcome: outcome.ok ? "succeeded" : "failed" });
    this.metrics?.duration.observe(outcome.durationMs / 1000);
    if (outcome.ok) {
      await webhooks.deliveries.recordAttempt(
        delivery,
        { ...outcome, nextAttemptAt: null, final: true },
        { wasFailing: target.failingSince !== null },
      );
      return;
    }
    const schedule = this.opts.retryScheduleMs ?? [...WEBHOOK_RETRY_SCHEDULE_MS];
    const { retry } = await afterFailure(
      { platform: this.platform, notifier: this.notifier, log: this.log },
      target,
      delivery,
      outcome,
      schedule[0] ?? null,
    );
    if (!retry) return;
    const input: WebhookRetryInput = {
      deliveryId: delivery.id,
      instanceId: delivery.instanceId,
      ...(this.opts.retryScheduleMs ? { scheduleMs: schedule } : {}),
    };
    await this.temporal.workflow
      .start("webhookRetry", {
        taskQueue: this.opts.taskQueue,
        workflowId: `webhook-retry-${delivery.id}`,
        args: [input],
      })
      .catch((err: Error) => {
        // Already started (a redelivered entry): the retries exist, which is all we need.
        if (err.name !== "WorkflowExecutionAlreadyStartedError") throw err;
      });
  }

  private targetsOf(instanceId: string): Promise<WebhookTarget[]> {
    return this.targets.get(instanceId, () => this.platform.webhooks.targets(instanceId));
  }
}
