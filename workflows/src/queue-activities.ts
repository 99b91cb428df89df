/**
 * The activities the send-queue workflows call (implemented by the worker role, in
 * services/worker). Types only: workflow code imports nothing with I/O.
 *
 * Every activity is idempotent: Temporal may run one again after a worker crash, and the
 * Redis state of the item (its status) decides what a repeated call does.
 */

/** The head of an instance's queue, as the workflow needs it to plan the send. */
export type NextQueueItem =
  | {
      kind: "item";
      queueId: string;
      /** The item's own `delayMessage` in ms, or null to draw one in `delayMin..delayMax`. */
      delayMs: number | null;
      /** The item's own `delayTyping` in ms, or null for the rule of {@link typingRuleMs}. */
      typingMs: number | null;
      /** The queue settings in force (seconds). */
      delayMin: number;
      delayMax: number;
      /** Characters of text the message carries (text, caption), for the typing rule. */
      textLength: number;
      /** When the item fails as `expired` if not sent (ms since epoch). */
      expiresAt: number;
    }
  /** Nothing is waiting. The instance's "workflow running" marker was cleared atomically. */
  | { kind: "empty" }
  /** The queue is paused. The marker was cleared: resume starts the workflow again. */
  | { kind: "paused" };

/** What one send attempt of an item came to. */
export type SendAttempt =
  | { kind: "sent"; messageId: string }
  /** The item is no longer `queued` (cancelled meanwhile, or already final): nothing to do. */
  | { kind: "gone" }
  /** The queue was paused before the send: the item stays first in line, untouched. */
  | { kind: "paused" }
  /** The number is not connected (or no session pod holds it): wait and try again until TTL. */
  | { kind: "disconnected"; error: string }
  /** A final failure (network refused, invalid media, …): the activity already marked the item `failed`. */
  | { kind: "failed"; error: string };

export interface QueueActivities {
  /**
   * The first `queued` item in send order. Items past their `expiresAt` on the way are marked
   * `expired` (with their `queue.failed` event) and skipped.
   */
  nextQueueItem(input: { instanceId: string }): Promise<NextQueueItem>;
  /**
   * Records the plan of an item (`delayMs`, `typingMs`, `plannedAt` = now + delay + typing,
   * `position` 0). Answers false when the item is no longer `queued` (then skip it).
   */
  planQueueItem(input: {
    instanceId: string;
    queueId: string;
    delayMs: number;
    typingMs: number;
    /** When the send is due (ms since epoch, the workflow's clock); default now + delay + typing. */
    plannedAt?: number;
  }): Promise<boolean>;
  /** Shows the typing indicator in the item's chat (best effort: never throws for network errors). */
  showTyping(input: { instanceId: string; queueId: string }): Promise<void>;
  /** Sends the item once (the network message id is derived from the queue id). */
  sendQueueItem(input: { instanceId: string; queueId: string }): Promise<SendAttempt>;
  /** Marks an item that waited past its `expiresAt` as `expired` (emits `queue.failed`). */
  expireQueueItem(input: { instanceId: string; queueId: string; error: string }): Promise<void>;
}

/** Default typing time when the item has no `delayTyping` (docs/sending.md): a person typing the text. */
export function typingRuleMs(textLength: number): number {
  // ~40 ms per character, at least 1 s and at most 8 s (well inside delayTyping's 15 s).
  return Math.min(8_000, Math.max(1_000, Math.round(textLength * 40)));
}
