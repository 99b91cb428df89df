// What a process remembers between writes so that a message's writes need no read: when it last
// set a key's TTL, where the messages it stored lately are, what it last wrote to a chat record.
// Each is per instance, bounded, and forgotten with the instance (its invalidation) or when a pod
// takes an instance over (another process may have written meanwhile).
import type { Place } from "./doc.ts";

/** How often a process refreshes a TTL that it already set (the retention counts from the last write). */
export const TTL_REFRESH_MS = 3_600_000;

/** Per instance, a bounded map: when full, the oldest instance's entries go first. */
class PerInstance<V> {
  private readonly byInstance = new Map<string, Map<string, V>>();
  private size = 0;

  constructor(private readonly max: number) {}

  get(instanceId: string, key: string): V | undefined {
    return this.byInstance.get(instanceId)?.get(key);
  }

  set(instanceId: string, key: string, value: V): void {
    let m = this.byInstance.get(instanceId);
    if (!m) {
      m = new Map();
      this.byInstance.set(instanceId, m);
    }
    const had = m.has(key);
    if (had) m.delete(key); // to the end: the newest
    m.set(key, value);
    if (!had && ++this.size > this.max) this.evict();
  }

  delete(instanceId: string, key: string): void {
    const m = this.byInstance.get(instanceId);
    if (m?.delete(key)) this.size--;
  }

  forget(instanceId: string | null): void {
    if (instanceId === null) {
      this.byInstance.clear();
      this.size = 0;
      return;
    }
    const m = this.byInstance.get(instanceId);
    if (!m) return;
    this.size -= m.size;
    this.byInstance.delete(instanceId);
  }

  /** A quarter of the entries, oldest first within each instance, instances in the order they came. */
  private evict(): void {
    let drop = Math.ceil(this.max / 4);
    for (const [id, m] of this.byInstance) {
      for (const key of m.keys()) {
        m.delete(key);
        this.size--;
        if (--drop === 0) break;
      }
      if (m.size === 0) this.byInstance.delete(id);
      if (drop === 0) return;
    }
  }
}

/**
 * When this process last set each key's TTL. A set lives `retention + everyMs` after the last
 * refresh, so refreshing at most every `everyMs` (an hour, or half the retention if shorter) keeps
 * it at least `retention` after its newest member (docs/read-model.md). A key cannot expire while
 * its refresh is younger than `everyMs`, and no read model set is ever emptied by a write: members
 * only leave when their document expired, and a set refreshed that recently holds a member younger
 * than its document's TTL. So a memo younger than `everyMs` is never wrong about a key's TTL.
 */
export class TtlMemo {
  private readonly at: PerInstance<number>;

  /** `everyMs`: how often a key's TTL is refreshed; at most half the shortest TTL it sets. */
  constructor(
    readonly everyMs = TTL_REFRESH_MS,
    max = 100_000,
  ) {
    this.at = new PerInstance(max);
  }

  /** True when the TTL is due (and noted as set now): the caller sets it with this write. */
  due(instanceId: string, key: string, now: number): boolean {
    const at = this.at.get(instanceId, key);
    if (at !== undefined && now - at < this.everyMs) return false;
    this.at.set(instanceId, key, now);
    return true;
  }

  /** The write that was to set it failed. */
  undo(instanceId: string, key: string): void {
    this.at.delete(instanceId, key);
  }

  forget(instanceId: string | null): void {
    this.at.forget(instanceId);
  }
}

/**
 * Where the messages this process stored lately are (their chat, lid, fromMe, sortKey): an ack of
 * one of them is then one `ZADD XX GT` of the new score to its ack sets, without reading the
 * document. The place is the stored one (the store's answer, also for a message stored before),
 * so an ack waits for its message's store to answer; it then also runs after it in Redis.
 */
export class PlaceMemo {
  private readonly places: PerInstance<Promise<Place | null>>;

  constructor(max = 50_000) {
    this.places = new PerInstance(max);
  }

  get(instanceId: string, networkId: string): Promise<Place | null> | undefined {
    return this.places.get(instanceId, networkId);
  }

  set(instanceId: string, networkId: string, place: Promise<Place | null>): void {
    this.places.set(instanceId, networkId, place);
  }

  forget(instanceId: string | null): void {
    this.places.forget(instanceId);
  }
}

/** What this process last wrote to a chat's record and state (chats.ts: a message's fast path). */
export interface ChatFacts {
  /** When the chat's TTLs were last refreshed (the state's `ttlAt`). */
  ttlAt: number;
  name: string;
  lid: string;
  merged: boolean;
  /** The privacy-id chat already folded into this one, or found absent. */
  lidChecked: string | null;
}

export class ChatMemo {
  private readonly chats: PerInstance<ChatFacts>;

  constructor(max = 50_000) {
    this.chats = new PerInstance(max);
  }

  get(instanceId: string, chatId: string): ChatFacts | undefined {
    return this.chats.get(instanceId, chatId);
  }

  set(instanceId: string, chatId: string, facts: ChatFacts): void {
    this.chats.set(instanceId, chatId, facts);
  }

  delete(instanceId: string, chatId: string): void {
    this.chats.delete(instanceId, chatId);
  }

  forget(instanceId: string | null): void {
    this.chats.forget(instanceId);
  }
}
