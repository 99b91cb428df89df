import type { QueueEventPayload, QueueItem, QueueStatus, SendRequest } from "@gw/contracts";

/**
 * A send-queue item as Redis keeps it (`q:<i>:item:<qid>`, queue-store.ts): the public item of
 * spec 2.7 plus what the worker needs to send it, and the two views between them.
 */

export interface StoredQueueItem extends QueueItem {
  /**
   * The validated request, its inline files as references to the media store (`stored` in place
   * of `data`, queue-files.ts): SendQueue.requestOf reads them back before the send.
   */
  request: SendRequest;
  /** The item's own `delayMessage` / `delayTyping` (ms), null when not given. */
  ownDelayMs: number | null;
  ownTypingMs: number | null;
  textLength: number;
  plannedAt: number | null;
  /** Its final event (queue.sent / queue.failed) was published. */
  announced: boolean;
}

export function num(v: string | undefined): number | null {
  return v === undefined || v === "" ? null : Number(v);
}
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An item's hash as the client and the worker see it; `position`: its place in line (null when not waiting). */
export function decodeItem(raw: Record<string, string>, position: number | null): StoredQueueItem {
  const status = raw.status as QueueStatus;
  return {
    id: raw.id!,
    status,
    route: raw.route ?? "",
    chatId: raw.chatId ?? "",
    messageId: raw.messageId || null,
    attempts: Number(raw.attempts ?? 0),
    position: status === "queued" || status === "sending" ? position : null,
    delayMs: num(raw.delayMs),
    typingMs: num(raw.typingMs),
    error: status === "queued" || status === "sending" ? null : raw.error || null,
    createdAt: iso(Number(raw.createdAt))!,
    expiresAt: iso(Number(raw.expiresAt))!,
    finishedAt: iso(num(raw.finishedAt)),
    request: JSON.parse(raw.request ?? "null") as SendRequest,
    ownDelayMs: num(raw.ownDelayMs),
    ownTypingMs: num(raw.ownTypingMs),
    textLength: Number(raw.textLength ?? 0),
    plannedAt: num(raw.plannedAt),
    announced: raw.announced === "1",
  };
}

/** The public view of an item (spec 2.7). */
export function publicItem(item: StoredQueueItem): QueueItem {
  const { request: _r, ownDelayMs: _d, ownTypingMs: _t, textLength: _l, plannedAt: _p, announced: _a, ...pub } = item;
  return pub;
}

/**
 * The payload of an item's `queue.sent` / `queue.failed`: its public view plus `timestamp`, unix
 * seconds of the moment it finished (spec 6: the field every event carries). `now` only when the
 * item has no `finishedAt` (it always has one once final).
 */
export function queueEventPayload(item: StoredQueueItem, now = Date.now()): QueueEventPayload {
  const finished = item.finishedAt ? Date.parse(item.finishedAt) : now;
  return { ...publicItem(item), timestamp: Math.floor(finished / 1000) };
}
