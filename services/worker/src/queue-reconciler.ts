import type { Logger, Platform } from "@gw/platform";
import { queueWorkflowId, type Sending, WAKE_SIGNAL } from "@gw/sending";
import type { Client } from "@temporalio/client";

/**
 * Keeps every instance with pending items served by a running queue workflow. An enqueue
 * starts the workflow itself; this catches what that cannot: a signal-with-start that failed
 * after the item was stored (Temporal down), a workflow terminated by hand. It also wakes a
 * queue when its number reconnects, so waiting items are sent at once.
 */
export class QueueReconciler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly platform: Platform,
    private readonly sending: Sending,
    private readonly client: Client,
    private readonly log: Logger,
    private readonly intervalMs = 30_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .catch((err) => this.log.warn({ err }, "queue reconcile failed"))
        .finally(() => {
          this.running = null;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass: every instance with pending items gets a running workflow. */
  async tick(): Promise<void> {
    const store = this.sending.queue.store;
    for (const instanceId of await store.activeInstances()) {
      // Items anywhere in line past their TTL (the workflow only sees the first one).
      const expired = await store.expireDue(instanceId);
      if (expired.length) {
        const instance = await this.platform.instanceCache.get(instanceId);
        for (const id of expired) {
          const item = await store.get(instanceId, id);
          if (instance && item) await this.sending.queue.publishFinal(instance, item);
        }
      }
      const settings = await store.settings(instanceId);
      if (settings.paused || settings.pending === 0) continue;
      if (await store.claimRunning(instanceId)) {
        await this.sending.queue.start(instanceId);
        continue;
      }
      const status = await this.client.workflow
        .getHandle(queueWorkflowId(instanceId))
        .describe()
        .then((d) => d.status.name)
        .catch(() => "NOT_FOUND");
      if (status !== "RUNNING") {
        this.log.warn({ instanceId, status }, "queue workflow missing: starting it");
        await this.sending.queue.start(instanceId);
      }
    }
  }

  /**
   * The number reconnected: a running queue workflow retries its waiting item now. Only
   * instances with pending items are signalled (a Redis set check, not a Temporal call per
   * status event: status events can be many).
   */
  wake(instanceId: string): void {
    this.sending.queue.store
      .isActive(instanceId)
      .then((active) =>
        active ? this.client.workflow.getHandle(queueWorkflowId(instanceId)).signal(WAKE_SIGNAL) : undefined,
      )
      .catch(() => {}); // not running: nothing waits
  }
}
