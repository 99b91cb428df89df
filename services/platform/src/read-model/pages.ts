// Message reads: pages of a chat's history (spec 4.5) as ranges of the message sets, the unread
// list, one message, and stored documents with their acks.
import { type Instance, NETWORK_ID_RE, parseMessageId } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { IdentityMap } from "../store/identity.ts";
import { ACK, ACKS, ackBase, fromAckScore } from "./acks.ts";
import { compareEntries, parseDoc } from "./doc.ts";
import type { MessageDoc, MessageQuery } from "./types.ts";

/** The chat ids a read of `chatId` covers: itself, its number when it is a known lid, and the lids of a number. */
export async function chatFamily(
  identity: IdentityMap,
  instanceId: string,
  chatId: string,
): Promise<{ canonical: string; ids: string[] }> {
  const canonical = (await identity.rewrite(instanceId, chatId)) ?? chatId;
  const ids = new Set([chatId, canonical]);
  if (canonical.endsWith("@c.us")) {
    for (const lid of await identity.lidsOf(instanceId, canonical.split("@")[0]!)) ids.add(lid);
  }
  return { canonical, ids: [...ids] };
}

/**
 * A range a page reads: a message set (scores are sortKeys; the acks are looked up in `ackSets`,
 * fromMe 0 and 1) or one ack's band of an ack set (scores `base + sortKey`, the ack known).
 */
interface Source {
  key: string;
  base: number;
  ack: number | null;
  ackSets: [string, string] | null;
}

type PageBounds = Omit<MessageQuery, "merge" | "downloadMedia">;

export class MessagePages {
  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly identity: IdentityMap,
  ) {}

  private ackSets(instanceId: string, id: string, lid: boolean): [string, string] {
    const prefix = lid ? this.k.readLidAckPrefix(instanceId) : this.k.readAckPrefix(instanceId);
    return [`${prefix}${id}:0`, `${prefix}${id}:1`];
  }

  /** The message sets of `ids` (merged: also of them as lids): every message, acks looked up. */
  private allSources(instanceId: string, ids: string[], merge: boolean): Source[] {
    return ids.flatMap((id) => [
      { key: this.k.readChatIndex(instanceId, id), base: 0, ack: null, ackSets: this.ackSets(instanceId, id, false) },
      ...(merge
        ? [
            {
              key: this.k.readLidIndex(instanceId, id),
              base: 0,
              ack: null,
              ackSets: this.ackSets(instanceId, id, true),
            },
          ]
        : []),
    ]);
  }

  /** The bands of the ack sets of `ids` (merged: also as lids) for these fromMe and ack values. */
  private ackSources(
    instanceId: string,
    ids: string[],
    merge: boolean,
    fromMe: boolean[],
    acks: readonly number[],
  ): Source[] {
    const sets = ids.flatMap((id) => [
      ...fromMe.map((m) => this.ackSets(instanceId, id, false)[m ? 1 : 0]),
      ...(merge ? fromMe.map((m) => this.ackSets(instanceId, id, true)[m ? 1 : 0]) : []),
    ]);
    return sets.flatMap((key) => acks.map((ack) => ({ key, base: ackBase(ack), ack, ackSets: null })));
  }

  /**
   * Spec 4.5 `GET /chats/{chatId}/messages`: newest first unless asked otherwise, read from the
   * message sets the read covers (not merged: the chat's; merged: every id of the person, chats
   * and lids) — the sets of all messages, or with `fromMe`/`ack` the bands of the ack sets that
   * match. Ordered by sortKey, then by network id.
   */
  async list(instance: Instance, chatId: string, q: MessageQuery): Promise<MessageDoc[]> {
    const ids = q.merge ? (await chatFamily(this.identity, instance.id, chatId)).ids : [chatId];
    const filtered = q.fromMe !== undefined || q.ack !== undefined;
    const sources = filtered
      ? this.ackSources(
          instance.id,
          ids,
          q.merge,
          q.fromMe === undefined ? [true, false] : [q.fromMe],
          q.ack === undefined ? ACKS : [q.ack],
        )
      : this.allSources(instance.id, ids, q.merge);
    return this.page(instance.id, sources, q);
  }

  /** Received messages of a chat (every id of the person) not read yet, newest first. */
  unread(instanceId: string, ids: string[], opts: { limit: number; sinceSeconds?: number }): Promise<MessageDoc[]> {
    const sources = this.ackSources(
      instanceId,
      ids,
      true,
      [false],
      ACKS.filter((a) => a <= ACK.DEVICE),
    );
    return this.page(instanceId, sources, {
      limit: opts.limit,
      offset: 0,
      sortOrder: "desc",
      ...(opts.sinceSeconds !== undefined ? { timestampGte: opts.sinceSeconds } : {}),
    });
  }

  /**
   * A page of the union of `sources`: ZRANGE … BYSCORE of each (one: the page itself; several: the
   * first offset + limit of each, merged here and deduplicated), then the page's documents in one
   * MGET, with the acks of the message sets' members in the same round trip (ZMSCORE). A member
   * whose document expired (retention) is dropped from the sets and the page read again.
   */
  private async page(instanceId: string, sources: Source[], q: PageBounds): Promise<MessageDoc[]> {
    if (q.limit <= 0 || sources.length === 0) return [];
    const desc = q.sortOrder !== "asc";
    const lo = q.timestampGte !== undefined ? q.timestampGte * 1000 : null;
    const hi = q.timestampLte !== undefined ? q.timestampLte * 1000 + 999 : null;
    const [from, count] = sources.length === 1 ? [q.offset, q.limit] : [0, q.offset + q.limit];
    for (let attempt = 0; ; attempt++) {
      const p = this.redis.pipeline();
      for (const s of sources) {
        // A band's bounds stay inside it: sortKeys are below the span of one rank.
        const min = lo === null ? (s.ack === null ? "-inf" : String(s.base)) : String(s.base + lo);
        const max = hi === null ? (s.ack === null ? "+inf" : `(${s.base + 2 ** 42}`) : String(s.base + hi);
        if (desc) p.zrange(s.key, max, min, "BYSCORE", "REV", "LIMIT", from, count, "WITHSCORES");
        else p.zrange(s.key, min, max, "BYSCORE", "LIMIT", from, count, "WITHSCORES");
      }
      const replies = (await p.exec()) ?? [];
      const entries = new Map<string, { sortKey: number; source: Source }>();
      replies.forEach(([err, reply], i) => {
        if (err) throw err;
        const source = sources[i]!;
        const flat = reply as string[];
        for (let j = 0; j < flat.length; j += 2) {
          if (!entries.has(flat[j]!)) entries.set(flat[j]!, { sortKey: Number(flat[j + 1]) - source.base, source });
        }
      });
      let members = [...entries.keys()];
      if (sources.length > 1) {
        members.sort(
          (a, b) => compareEntries(entries.get(a)!.sortKey, a, entries.get(b)!.sortKey, b) * (desc ? -1 : 1),
        );
        members = members.slice(q.offset, q.offset + q.limit);
      }
      const docs = await this.docsOf(
        instanceId,
        members.map((m) => ({ id: m, ...entries.get(m)! })),
      );
      const gone = members.filter((_, i) => docs[i] === null);
      if (gone.length === 0 || attempt >= 5) return docs.filter((d): d is MessageDoc => d !== null);
      // Expired documents (retention): out of the sets, and the page again.
      const cleanup = this.redis.pipeline();
      for (const s of sources) cleanup.zrem(s.key, ...gone);
      await cleanup.exec();
    }
  }

  /** The documents of a page's members, with their acks (from the band read, or looked up). */
  private async docsOf(instanceId: string, members: { id: string; source: Source }[]): Promise<(MessageDoc | null)[]> {
    if (members.length === 0) return [];
    const p = this.redis.pipeline();
    p.mget(...members.map((m) => this.k.readDoc(instanceId, m.id)));
    const lookups = new Map<Source, string[]>();
    for (const m of members) {
      if (m.source.ack !== null) continue;
      const ids = lookups.get(m.source) ?? [];
      if (ids.length === 0) lookups.set(m.source, ids);
      ids.push(m.id);
    }
    for (const [s, ids] of lookups) for (const set of s.ackSets!) p.zmscore(set, ...ids);
    const replies = (await p.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const jsons = replies[0]![1] as (string | null)[];
    const scores = new Map<string, [string | null, string | null]>();
    let r = 1;
    for (const ids of lookups.values()) {
      const zero = replies[r++]![1] as (string | null)[];
      const one = replies[r++]![1] as (string | null)[];
      ids.forEach((id, i) => {
        scores.set(id, [zero[i] ?? null, one[i] ?? null]);
      });
    }
    return members.map((m, i) => {
      const json = jsons[i];
      if (!json) return null;
      if (m.source.ack !== null) return parseDoc(json, m.source.ack);
      const doc = parseDoc(json, ACK.PENDING);
      const score = scores.get(m.id)?.[doc.fromMe ? 1 : 0];
      doc.ack = score ? fromAckScore(Number(score)).ack : doc.fromMe ? ACK.SERVER : ACK.DEVICE;
      return doc;
    });
  }

  /**
   * Stored documents by network id, in that order (null where none), with their acks (a second
   * round trip: the ack set is known from the document) unless `acks` is false.
   */
  async docs(instanceId: string, networkIds: string[], acks = true): Promise<(MessageDoc | null)[]> {
    if (networkIds.length === 0) return [];
    const jsons = await this.redis.mget(...networkIds.map((id) => this.k.readDoc(instanceId, id)));
    const docs = jsons.map((j) => (j ? parseDoc(j, ACK.PENDING) : null));
    if (!acks) return docs;
    const p = this.redis.pipeline();
    const prefix = this.k.readAckPrefix(instanceId);
    const asked: MessageDoc[] = [];
    for (const d of docs) {
      if (!d) continue;
      p.zscore(`${prefix}${d.chatId}:${d.fromMe ? 1 : 0}`, d.networkId);
      asked.push(d);
    }
    if (asked.length === 0) return docs;
    const replies = (await p.exec()) ?? [];
    asked.forEach((d, i) => {
      const [err, score] = replies[i]!;
      if (err) throw err;
      d.ack = score ? fromAckScore(Number(score)).ack : d.fromMe ? ACK.SERVER : ACK.DEVICE;
    });
    return docs;
  }

  /** The stored message behind an id, if it belongs to the chat (merged: to the person). */
  async get(instance: Instance, chatId: string, messageId: string, merge = true): Promise<MessageDoc | null> {
    const networkId = parseMessageId(messageId)?.id ?? messageId.trim();
    if (!NETWORK_ID_RE.test(networkId)) return null;
    const [doc] = await this.docs(instance.id, [networkId]);
    if (!doc) return null;
    if (doc.chatId === chatId) return doc;
    if (!merge) return null;
    const { ids } = await chatFamily(this.identity, instance.id, chatId);
    return ids.includes(doc.chatId) || (doc.chatLid !== undefined && ids.includes(doc.chatLid)) ? doc : null;
  }
}
