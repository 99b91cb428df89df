// A message's writes: stored when it arrives or is sent, its ack moved, edited or revoked.
import type { Instance } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Keys } from "../infra/keys.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";
import { ACK_OF_STATUS, ackRank, ackScore } from "./acks.ts";
import { docJson, type Place, parseDoc, placeOf } from "./doc.ts";
import { PlaceMemo, TtlMemo } from "./memo.ts";
import { ACK_AT, ACK_BY_DOC, SAVE_MESSAGE, SWAP_DOC } from "./scripts.ts";
import type { MessageDoc } from "./types.ts";

type Swap = { gwRmSwap(doc: string, read: string, write: string): Promise<number> };

/** The sets that hold a stored message: its chat's and ack set, and (a number chat carrying a lid) the lid's. */
export interface MessageSets {
  all: string;
  ack: string;
  lidAll: string;
  lidAck: string;
}

export class MessageWrites {
  private readonly ttls: TtlMemo;
  private readonly places = new PlaceMemo();
  /** Messages whose ack this process left pending (an ack before the store): their store takes it. */
  private readonly pendingHere = new Set<string>();
  private static readonly PENDING_HERE_MAX = 10_000;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly batch: ScriptBatch,
    private readonly retentionMs: number,
    private readonly pendingAckMs: number,
  ) {
    this.ttls = new TtlMemo(Math.min(3_600_000, Math.floor(retentionMs / 2)));
    batch.register("rmSave", SAVE_MESSAGE, { keys: 6, args: 10 });
    batch.register("rmAckAt", ACK_AT, { keys: 2, args: 2 });
    batch.register("rmAckDoc", ACK_BY_DOC, { keys: 2, args: 5 });
    redis.defineCommand("gwRmSwap", { numberOfKeys: 1, lua: SWAP_DOC });
  }

  docKey(instanceId: string, networkId: string): string {
    return this.k.readDoc(instanceId, networkId);
  }

  /** The sets of a message stored under `chatId` carrying `chatLid`, for its fromMe. */
  setsOf(
    instanceId: string,
    place: { chatId: string; chatLid?: string | null | undefined; fromMe: boolean },
  ): MessageSets {
    const m = place.fromMe ? ":1" : ":0";
    const all = this.k.readChatIndex(instanceId, place.chatId);
    const ack = `${this.k.readAckPrefix(instanceId)}${place.chatId}${m}`;
    if (!place.chatLid || place.chatLid === place.chatId) return { all, ack, lidAll: all, lidAck: ack };
    return {
      all,
      ack,
      lidAll: this.k.readLidIndex(instanceId, place.chatLid),
      lidAck: `${this.k.readLidAckPrefix(instanceId)}${place.chatLid}${m}`,
    };
  }

  /** Sets lifetime: retention after the newest member, plus the refresh period (memo.ts). */
  private get setTtl(): number {
    return this.retentionMs + this.ttls.everyMs;
  }

  /**
   * Stores a message (one script in the turn's batch). A message recorded again keeps its place,
   * ack, edit and revocation; its content is updated. Remembers where it is for its acks.
   */
  save(instance: Pick<Instance, "id" | "kind">, doc: MessageDoc): Promise<void> {
    const instanceId = instance.id;
    const sets = this.setsOf(instanceId, doc);
    const now = Date.now();
    const setKeys = [sets.all, sets.ack, sets.lidAll, sets.lidAck];
    const ttls = setKeys.map((key, i) =>
      i >= 2 && key === setKeys[i - 2] ? 0 : this.ttls.due(instanceId, key, now) ? this.setTtl : 0,
    );
    const pendingId = `${instanceId}:${doc.networkId}`;
    // An ack left pending by this process, or by another one: official-gateway acks come through
    // the worker's inbound processing, not the process that sends.
    const checkPending = instance.kind === "official" || this.pendingHere.delete(pendingId);
    const json = docJson(doc);
    const stored = this.batch
      .run(
        "rmSave",
        [this.docKey(instanceId, doc.networkId), ...setKeys, this.k.readPendingAck(instanceId, doc.networkId)],
        [json, this.retentionMs, doc.sortKey, doc.networkId, ackRank(doc.ack), checkPending ? 1 : 0, ...ttls],
      )
      .then((reply) => reply as unknown[]);
    const place: Promise<Place | null> = stored.then(
      (r) =>
        r[0] === 1
          ? { chatId: doc.chatId, chatLid: doc.chatLid ?? null, fromMe: doc.fromMe, sortKey: doc.sortKey }
          : placeOf(r, 1),
      () => null,
    );
    if (doc.fromMe) this.places.set(instanceId, doc.networkId, place);
    // A TTL noted as set that the script did not set (it failed, or found the message stored
    // and wrote no set) is due again at the next write.
    const undoTtls = () =>
      setKeys.forEach((key, i) => {
        if (ttls[i]) this.ttls.undo(instanceId, key);
      });
    return stored.then(
      async (r) => {
        if (r[0] === 1) return;
        undoTtls();
        await this.update(instanceId, doc);
      },
      (err) => {
        undoTtls();
        throw err;
      },
    );
  }

  /** A message recorded again: its content as now, its place, edit and revocation as stored. */
  private update(instanceId: string, doc: MessageDoc): Promise<void> {
    return this.rewrite(instanceId, doc.networkId, (stored) => {
      if (stored.revoked) return null; // a revocation stays
      const next: MessageDoc = { ...doc, chatId: stored.chatId, fromMe: stored.fromMe, sortKey: stored.sortKey };
      if (stored.chatLid) next.chatLid = stored.chatLid;
      else delete next.chatLid;
      if (stored.keeps) {
        // The content as sent stays the kept message (a repeated event carries the network's own).
        next.raw = stored.raw;
        next.keeps = true;
      }
      if (stored.edited) {
        next.body = stored.body;
        next.edited = true;
        if (stored.editedAt !== undefined) next.editedAt = stored.editedAt;
      }
      return next;
    });
  }

  /** Reads, changes and writes back a document, again if it changed meanwhile. Nothing if absent. */
  async rewrite(instanceId: string, networkId: string, change: (doc: MessageDoc) => MessageDoc | null): Promise<void> {
    const key = this.docKey(instanceId, networkId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const json = await this.redis.get(key);
      if (json === null) return;
      const next = change(parseDoc(json, 0));
      if (next === null) return;
      if ((await (this.redis as unknown as Swap).gwRmSwap(key, json, docJson(next))) === 1) return;
    }
    throw new Error(`read model: ${key} kept changing`);
  }

  /**
   * An ack (spec 2.9 status) of a message this account sent. Where this process stored it lately,
   * one `ZADD XX GT` of its ack sets; else found by its document (and, not stored yet, pending).
   */
  async ack(instanceId: string, networkId: string, status: string): Promise<void> {
    const n = ACK_OF_STATUS[status];
    if (n === undefined) return;
    const known = this.places.get(instanceId, networkId);
    const place = known ? await known : null;
    if (place) {
      const sets = this.setsOf(instanceId, place);
      await this.batch.run("rmAckAt", [sets.ack, sets.lidAck], [ackScore(n, place.sortKey), networkId]);
      return;
    }
    // Marked before the round trip: a store queued meanwhile (it runs after this ack in Redis)
    // must look for the pending ack this may leave.
    const mark = `${instanceId}:${networkId}`;
    if (this.pendingHere.size >= MessageWrites.PENDING_HERE_MAX) this.pendingHere.clear();
    this.pendingHere.add(mark);
    const r = await this.batch.run(
      "rmAckDoc",
      [this.docKey(instanceId, networkId), this.k.readPendingAck(instanceId, networkId)],
      [ackRank(n), networkId, this.k.readAckPrefix(instanceId), this.k.readLidAckPrefix(instanceId), this.pendingAckMs],
    );
    // Stored already: nothing pending. (Bounded: a message that never comes leaves its mark until
    // the set is cleared; the pending key itself lives 2 minutes.)
    if (r !== -1) this.pendingHere.delete(mark);
  }

  /** Received messages read by this account: their ack raised to `ack` (never lowered). */
  async raise(instanceId: string, networkIds: string[], ack: number): Promise<void> {
    const args = [this.k.readAckPrefix(instanceId), this.k.readLidAckPrefix(instanceId), 0];
    await Promise.all(
      networkIds.map((id) =>
        this.batch.run(
          "rmAckDoc",
          [this.docKey(instanceId, id), this.k.readPendingAck(instanceId, id)],
          [ackRank(ack), id, ...args],
        ),
      ),
    );
  }

  /** Messages already in stored form, pipelined (bulk loads and benchmarks). */
  async saveMany(instanceId: string, docs: MessageDoc[]): Promise<void> {
    const p = this.redis.pipeline();
    const sets = new Map<string, (string | number)[]>();
    const add = (set: string, score: number, doc: MessageDoc) => {
      const members = sets.get(set) ?? [];
      if (members.length === 0) sets.set(set, members);
      members.push(score, doc.networkId);
    };
    for (const doc of docs) {
      p.set(this.docKey(instanceId, doc.networkId), docJson(doc), "PX", this.retentionMs);
      const s = this.setsOf(instanceId, doc);
      const score = ackScore(doc.ack, doc.sortKey);
      for (const set of new Set([s.all, s.lidAll])) add(set, doc.sortKey, doc);
      for (const set of new Set([s.ack, s.lidAck])) add(set, score, doc);
    }
    for (const [set, members] of sets) {
      p.zadd(set, ...members);
      p.pexpire(set, this.setTtl);
    }
    const results = (await p.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  forget(instanceId: string | null): void {
    this.ttls.forget(instanceId);
    this.places.forget(instanceId);
  }
}
