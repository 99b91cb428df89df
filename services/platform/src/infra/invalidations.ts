import type { Redis } from "ioredis";
import { type InvalidationKind, invalidationMessage } from "./keys.ts";

type Handler = (instanceId: string | null) => void;

/**
 * How replicas learn that what they cache of an instance changed (the instance record, its
 * webhook subscriptions, its queue mode): one pub/sub channel, messages `<kind>:<instanceId>`.
 *
 * The replica that makes a change applies it to its own caches before it publishes: a client
 * that writes through one replica and reads through the same one sees its write at once, not
 * when the message comes back from Redis (its subscription connection is another socket, read
 * whenever the event loop gets to it). Its own message arriving later makes it forget twice,
 * which costs one reload.
 */
export class Invalidations {
  private readonly handlers = new Map<InvalidationKind, Handler[]>();

  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    private readonly channel: string,
  ) {
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const at = message.indexOf(":");
      if (at > 0) this.apply(message.slice(0, at) as InvalidationKind, message.slice(at + 1));
    });
    // After a reconnection some messages may have been missed: every cache forgets everything.
    subscriber.on("ready", () => {
      for (const kind of this.handlers.keys()) this.apply(kind, null);
    });
  }

  /** Calls `fn(instanceId)` when `kind` of an instance changed, `fn(null)` when anything may have. */
  on(kind: InvalidationKind, fn: Handler): void {
    const list = this.handlers.get(kind);
    if (list) list.push(fn);
    else this.handlers.set(kind, [fn]);
  }

  /** Tells every replica, this one first (synchronously), that `kind` of `instanceId` changed. */
  async announce(kind: InvalidationKind, instanceId: string): Promise<void> {
    this.apply(kind, instanceId);
    await this.publisher.publish(this.channel, invalidationMessage(kind, instanceId));
  }

  private apply(kind: InvalidationKind, instanceId: string | null): void {
    for (const fn of this.handlers.get(kind) ?? []) fn(instanceId);
  }
}
