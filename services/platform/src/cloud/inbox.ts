import type { Redis } from "ioredis";
import { shardOf } from "../events/bus.ts";
import type { Keys } from "../infra/keys.ts";

export const CLOUD_INBOX_GROUP = "cloud-inbound";

export interface InboxEntry {
  /** The stream entry id (the processor's claim on its items). */
  id: string;
  shard: number;
  instanceId: string;
  /** The changes, as JSON ({@link CloudChange}[]); or, when the whole webhook is the instance's, */
  changes: string | null;
  /** the webhook's body as received (saves re-serializing it on the operator's clock). */
  body: string | null;
  receivedAt: number;
}

type StreamReply = [key: string, entries: [id: string, fields: string[]][]][] | null;

/**
 * The official gateway's inbound webhooks between the 2xx and their processing: one Redis Stream
 * per shard (an instance always on one, so its webhooks keep their order), written before the
 * operator gets its answer, read by the worker role's processor in a consumer group. An entry is
 * deleted only once processed, so a process that dies after the 2xx loses nothing: its pending
 * entries are claimed by another processor (docs/official.md).
 */
export class CloudInbox {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    readonly shards: number,
  ) {}

  /**
   * One entry per instance of a webhook: its changes, or (`body`) the whole webhook when every
   * change of it is that instance's. Issued together: auto-pipelining sends them in one write.
   */
  async enqueue(
    batches: ({ instanceId: string; changes: unknown[] } | { instanceId: string; body: string })[],
    now = Date.now(),
  ): Promise<void> {
    await Promise.all(
      batches.map((b) =>
        this.redis.xadd(
          this.k.cloudInbound(shardOf(b.instanceId, this.shards)),
          "*",
          "instanceId",
          b.instanceId,
          ...("body" in b ? ["body", b.body] : ["changes", JSON.stringify(b.changes)]),
          "at",
          String(now),
        ),
      ),
    );
  }

  async ensureGroups(): Promise<void> {
    for (let s = 0; s < this.shards; s++) {
      await this.redis
        .xgroup("CREATE", this.k.cloudInbound(s), CLOUD_INBOX_GROUP, "0", "MKSTREAM")
        .catch((err: Error) => {
          if (!err.message.includes("BUSYGROUP")) throw err;
        });
    }
  }

  /** New entries for `consumer` (blocking up to `blockMs` on its own connection). */
  async read(conn: Redis, consumer: string, count: number, blockMs: number): Promise<InboxEntry[]> {
    const keys = Array.from({ length: this.shards }, (_, s) => this.k.cloudInbound(s));
    const reply = (await conn.xreadgroup(
      "GROUP",
      CLOUD_INBOX_GROUP,
      consumer,
      "COUNT",
      count,
      "BLOCK",
      blockMs,
      "STREAMS",
      ...keys,
      ...keys.map(() => ">"),
    )) as StreamReply;
    return this.entriesOf(reply ?? []);
  }

  /** Entries another consumer left pending longer than `idleMs` (it died): now `consumer`'s. */
  async claimStale(consumer: string, idleMs: number, count = 100): Promise<InboxEntry[]> {
    const out: InboxEntry[] = [];
    for (let s = 0; s < this.shards; s++) {
      const key = this.k.cloudInbound(s);
      const reply = (await this.redis.xautoclaim(key, CLOUD_INBOX_GROUP, consumer, idleMs, "0", "COUNT", count)) as [
        string,
        [string, string[]][],
      ];
      out.push(...this.entriesOf([[key, reply[1] ?? []]]));
    }
    return out;
  }

  /** Processed: acknowledged and removed (the stream holds only what is still to do). */
  async done(entry: InboxEntry): Promise<void> {
    const key = this.k.cloudInbound(entry.shard);
    await this.redis.multi().xack(key, CLOUD_INBOX_GROUP, entry.id).xdel(key, entry.id).exec();
  }

  /** Entries not yet processed, over all shards (metrics, tests). */
  async backlog(): Promise<number> {
    let n = 0;
    for (let s = 0; s < this.shards; s++) n += await this.redis.xlen(this.k.cloudInbound(s));
    return n;
  }

  private entriesOf(reply: [string, [string, string[]][]][]): InboxEntry[] {
    const out: InboxEntry[] = [];
    for (const [key, entries] of reply) {
      const shard = Number(key.slice(key.lastIndexOf(":") + 1));
      for (const [id, fields] of entries) {
        if (!fields) continue; // deleted meanwhile (XAUTOCLAIM answers nil fields)
        const f: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
        out.push({
          id,
          shard,
          instanceId: f.instanceId ?? "",
          changes: f.changes ?? null,
          body: f.body ?? null,
          receivedAt: Number(f.at ?? 0),
        });
      }
    }
    return out;
  }
}
