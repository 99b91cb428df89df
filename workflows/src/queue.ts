import {
  CancellationScope,
  ChildWorkflowCancellationType,
  type ChildWorkflowHandle,
  condition,
  continueAsNew,
  defineSignal,
  isCancellation,
  log,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from "@temporalio/workflow";
import { type QueueActivities, typingRuleMs } from "./queue-activities.ts";

// Every activity is idempotent and answers business outcomes instead of throwing: what Temporal
// retries (without limit) are infrastructure failures (Redis, a worker lost mid-call).
const retry = { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "30 seconds" } as const;
// Local activities: run by the worker inside the workflow task, with no server round trip to
// schedule them — each item's steps would otherwise add hundreds of ms under load (measured by
// `pnpm bench send`, scheduling error). Redis state makes each of them safe to run again.
const { nextQueueItem, planQueueItem, showTyping, expireQueueItem } = proxyLocalActivities<QueueActivities>({
  startToCloseTimeout: "30 seconds",
  retry,
});
const { sendQueueItem } = proxyLocalActivities<QueueActivities>({
  // May fetch and convert media before the send.
  startToCloseTimeout: "10 minutes",
  retry,
});

/** Items one run of {@link instanceQueue} handles before it continues as new (history stays small). */
export const QUEUE_ITEMS_PER_RUN = 100;
/** Waits between send attempts while the number is disconnected: 1 s, 2 s, 4 s … capped at this. */
export const DISCONNECTED_BACKOFF_MAX_MS = 15_000;
/** Pause of the parent after a child failed unexpectedly (terminated by hand, …), before it reads the queue again. */
const CHILD_FAILURE_PAUSE_MS = 5_000;

export interface InstanceQueueInput {
  instanceId: string;
  /** Items per run before continue-as-new; default {@link QUEUE_ITEMS_PER_RUN} (tests lower it). */
  itemsPerRun?: number;
}

export interface QueueItemInput {
  instanceId: string;
  queueId: string;
  /** Wait before the (first) typing indicator. */
  delayMs: number;
  /** Typing time before each send attempt; 0 shows no typing. */
  typingMs: number;
  /** Past this (ms since epoch), a disconnected item is marked `expired`. */
  expiresAt: number;
}

/** How one item ended, as far as its workflow is concerned. */
export type QueueItemOutcome = "sent" | "gone" | "paused" | "failed" | "expired";

export interface CancelItemsInput {
  queueIds?: string[];
  all?: boolean;
}

/** Something changed (new item, resume, reconnection): look at the queue again. No arguments. */
export const wakeSignal = defineSignal("wake");
/**
 * Items were cancelled (already marked so in Redis by the sender of the signal): the one in
 * progress, if named (or `all`), stops at once.
 */
export const cancelItemsSignal = defineSignal<[CancelItemsInput]>("cancelItems");

/** The workflow id of an instance's queue (callers signal-with-start it with {@link wakeSignal}). */
export function queueWorkflowId(instanceId: string): string {
  return `queue-${instanceId}`;
}

/** The workflow id of the child that sends one item. */
export function queueItemWorkflowId(queueId: string): string {
  return `queue-item-${queueId}`;
}

/** A uniform whole number of ms in [delayMin, delayMax] seconds (workflow Math.random: replay-safe). */
function drawDelayMs(delayMin: number, delayMax: number): number {
  const lo = Math.max(0, Math.round(delayMin * 1000));
  const hi = Math.max(lo, Math.round(delayMax * 1000));
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}

/**
 * The send queue of one instance: one item at a time, each in its own {@link queueItem} child.
 * Ends when the queue is empty or paused (the activity clears the "running" marker, so the next
 * enqueue or resume signal-with-starts a new run), unless a wake arrived meanwhile.
 */
export async function instanceQueue(input: InstanceQueueInput): Promise<void> {
  const { instanceId } = input;
  let wakes = 0;
  // Cancellations seen while nextQueueItem runs: its answer may predate them.
  let cancelledAll = false;
  const cancelled = new Set<string>();
  let current: { queueId: string; scope: CancellationScope; child?: ChildWorkflowHandle<typeof queueItem> } | undefined;

  setHandler(wakeSignal, () => {
    wakes++;
    // A child waiting for the reconnection tries again at once. It may have just ended: ignore.
    current?.child?.signal(wakeSignal).catch(() => {});
  });
  setHandler(cancelItemsSignal, ({ queueIds, all }) => {
    if (all) cancelledAll = true;
    for (const id of queueIds ?? []) cancelled.add(id);
    if (current && (all || queueIds?.includes(current.queueId))) current.scope.cancel();
  });

  for (let handled = 0; ; ) {
    if (handled >= (input.itemsPerRun ?? QUEUE_ITEMS_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof instanceQueue>(input);
    }
    const wakesBefore = wakes;
    cancelledAll = false;
    cancelled.clear();
    const next = await nextQueueItem({ instanceId });
    if (next.kind !== "item") {
      if (wakes === wakesBefore) return;
      continue;
    }
    // Cancelled while it was read: Redis says so already, the next read skips it (or, if it was
    // enqueued after a cancel-all, answers it again).
    if (cancelledAll || cancelled.has(next.queueId)) continue;

    handled++;
    const child: QueueItemInput = {
      instanceId,
      queueId: next.queueId,
      delayMs: next.delayMs ?? drawDelayMs(next.delayMin, next.delayMax),
      typingMs: next.typingMs ?? typingRuleMs(next.textLength),
      expiresAt: next.expiresAt,
    };
    const scope = new CancellationScope();
    const item: NonNullable<typeof current> = { queueId: child.queueId, scope };
    current = item;
    try {
      await scope.run(async () => {
        item.child = await startChild(queueItem, {
          workflowId: queueItemWorkflowId(child.queueId),
          args: [child],
          // Cancelling waits for the child to end: never two items in progress.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        });
        return item.child.result();
      });
    } catch (err) {
      if (!isCancellation(err)) {
        log.warn("queue item workflow failed", { instanceId, queueId: child.queueId, error: String(err) });
        await sleep(CHILD_FAILURE_PAUSE_MS);
      }
    } finally {
      current = undefined;
    }
  }
}

/**
 * One item: plan it, wait its delay, then typing and send, again while the number is
 * disconnected (until a wake or a backoff, and at the latest until its TTL, when it expires).
 * Cancelled by the parent (the item was cancelled) during a wait, it ends as `gone`.
 */
export async function queueItem(input: QueueItemInput): Promise<QueueItemOutcome> {
  const ids = { instanceId: input.instanceId, queueId: input.queueId };
  let wakes = 0;
  setHandler(wakeSignal, () => {
    wakes++;
  });
  // Activities run to their end even when cancelled: their result is the truth (a send under way
  // finishes, and one that finds the item cancelled answers "gone"). The waits are what cancels.
  const cancelRequested = () => CancellationScope.current().consideredCancelled;
  // The waits aim at absolute times from the workflow's clock: the time the steps themselves take
  // (planning, the typing indicator) is not added to the delay the client asked for.
  const sleepUntil = async (at: number) => {
    const ms = at - Date.now();
    if (ms > 0) await sleep(ms);
  };
  try {
    const plannedAt = Date.now() + input.delayMs + input.typingMs;
    const planned = await CancellationScope.nonCancellable(() =>
      planQueueItem({ ...ids, delayMs: input.delayMs, typingMs: input.typingMs, plannedAt }),
    );
    if (!planned) return "gone";
    await sleepUntil(plannedAt - input.typingMs);
    for (let backoffMs = 1_000; ; backoffMs = Math.min(backoffMs * 2, DISCONNECTED_BACKOFF_MAX_MS)) {
      if (input.typingMs > 0) {
        if (cancelRequested()) return "gone";
        const typingEnds = Date.now() + input.typingMs;
        await CancellationScope.nonCancellable(() => showTyping(ids));
        await sleepUntil(Math.max(typingEnds, plannedAt));
      }
      if (cancelRequested()) return "gone";
      const wakesBefore = wakes;
      const attempt = await CancellationScope.nonCancellable(() => sendQueueItem(ids));
      if (attempt.kind !== "disconnected") return attempt.kind;

      const now = Date.now();
      if (now >= input.expiresAt) {
        await CancellationScope.nonCancellable(() =>
          expireQueueItem({ ...ids, error: `not sent before it expired: ${attempt.error}` }),
        );
        return "expired";
      }
      // A wake during the attempt counts too: the reconnection may have come meanwhile.
      await condition(() => wakes !== wakesBefore, Math.min(backoffMs, input.expiresAt - now));
    }
  } catch (err) {
    if (isCancellation(err)) return "gone";
    throw err;
  }
}
