// Chats (spec 4.5): what a message does to its chat, the read/unread marks, and the chat lists.
import { formatMessageId, type Instance } from "@gw/contracts";
import type { Redis } from "ioredis";
import { type Repository, Schema } from "redis-om";
import type { MediaLinks } from "../auth/media-links.ts";
import type { Keys } from "../infra/keys.ts";
import type { ScriptBatch } from "../infra/script-batch.ts";
import type { IdentityMap } from "../store/identity.ts";
import { ChatMemo, TTL_REFRESH_MS } from "./memo.ts";
import { chatFamily } from "./pages.ts";
import { MARK_CHAT, TOUCH_CHAT } from "./scripts.ts";
import type { ChatDoc, ChatQuery, ChatState, ChatView, LastMessageSummary, MessageDoc } from "./types.ts";
import type { MessageViews } from "./views.ts";

// redis-om declares the chat records and their RediSearch index (the listings by name or id).
// Messages have none: every page of them is a range of sorted sets.
export function readModelSchemas(k: Keys) {
  return {
    chats: new Schema(
      k.readChatSchema,
      {
        instanceId: { type: "string" },
        chatId: { type: "string" },
        merged: { type: "boolean" },
        sortName: { type: "text", sortable: true, indexed: false },
        sortId: { type: "text", sortable: true, indexed: false },
      },
      { dataStructure: "JSON" },
    ),
  };
}

/** RediSearch TAG values: punctuation and spaces escaped. */
export function escapeTag(value: string): string {
  return value.replace(/[,.<>{}[\]"':;!@#$%^&*()\-+=~|/\\\s]/g, "\\$&");
}

const tagQuery = (field: string, values: string[]) => `@${field}:{${values.map(escapeTag).join(" | ")}}`;

/** The record fields behind the chats route's other sorts (lastMessageAt is the chat order sets'). */
const CHAT_SORT_FIELD = { name: "sortName", id: "sortId" } as const;

type Row = { chat: ChatDoc; state: ChatState | null };
type Docs = (instanceId: string, networkIds: string[]) => Promise<(MessageDoc | null)[]>;

export class ChatStore {
  /** What this process last wrote to each chat: a message's update then reads nothing (scripts.ts). */
  private readonly memo = new ChatMemo();

  constructor(
    private readonly redis: Redis,
    readonly repo: Repository,
    private readonly k: Keys,
    private readonly batch: ScriptBatch,
    private readonly identity: IdentityMap,
    private readonly mediaLinks: MediaLinks,
    private readonly views: MessageViews,
    private readonly docs: Docs,
    private readonly retentionMs: number,
  ) {
    batch.register("rmChat", TOUCH_CHAT, { keys: 6, args: 14 });
    redis.defineCommand("gwRmMarkChat", { numberOfKeys: 1, lua: MARK_CHAT });
  }

  recordKey(instanceId: string, chatId: string): string {
    return `${this.k.readChatSchema}:${instanceId}:${chatId}`;
  }

  stateKey(instanceId: string, chatId: string): string {
    return this.k.readChatState(instanceId, chatId);
  }

  /** A stored message's effect on its chat (and the fold of its lid chat into it). */
  async touch(instanceId: string, doc: MessageDoc, chatName: string | null): Promise<void> {
    const chatId = doc.chatId;
    const lidChat = doc.chatLid && doc.chatLid !== chatId ? doc.chatLid : chatId;
    const summary: LastMessageSummary = {
      id: formatMessageId({
        fromMe: doc.fromMe,
        chatId,
        id: doc.networkId,
        ...(doc.participant ? { participant: doc.participant } : {}),
      }),
      body: doc.body,
      type: doc.type,
      fromMe: doc.fromMe,
      hasMedia: Boolean(doc.hasMedia),
      timestamp: doc.timestamp,
    };
    // Spec 1 rule 7: the contact's name (or the group's subject), also on our own messages' events.
    const name = chatName ?? "";
    const lid = doc.chatLid ?? "";
    const now = Date.now();
    const known = this.memo.get(instanceId, chatId);
    // A minute's margin: the fast path never runs past the hourly refresh the full path makes.
    const fast =
      known !== undefined &&
      now - known.ttlAt < TTL_REFRESH_MS - 60_000 &&
      !known.merged &&
      (name === "" || name === known.name) &&
      (lid === "" || lid === known.lid) &&
      (lidChat === chatId || known.lidChecked === lidChat);
    const create: ChatDoc = {
      instanceId,
      chatId,
      lid: doc.chatLid ?? null,
      name: chatName,
      isGroup: Boolean(doc.isGroup),
      merged: false,
      mergedInto: null,
      picture: null,
      sortName: (chatName ?? chatId).toLowerCase(),
      sortId: chatId,
    };
    const r = (await this.batch.run(
      "rmChat",
      [
        this.recordKey(instanceId, chatId),
        this.stateKey(instanceId, chatId),
        this.k.readChatOrderVisible(instanceId),
        this.k.readChatOrderMerged(instanceId),
        this.recordKey(instanceId, lidChat),
        this.stateKey(instanceId, lidChat),
      ],
      [
        JSON.stringify(create),
        doc.sortKey,
        doc.networkId,
        JSON.stringify(summary),
        doc.timestamp,
        name,
        (chatName ?? chatId).toLowerCase(),
        lid,
        doc.fromMe ? "1" : "0",
        this.retentionMs,
        chatId,
        lidChat,
        now,
        fast ? "1" : "0",
      ],
    )) as unknown[];
    if (r[0] !== 1) return; // the fast path: nothing new to remember
    this.memo.set(instanceId, chatId, {
      ttlAt: Number(r[1]),
      name: String(r[2] ?? ""),
      lid: String(r[3] ?? ""),
      merged: r[4] === 1,
      lidChecked: lidChat === chatId ? null : lidChat,
    });
    // The lid chat may have folded: what this process knew of it is no longer so.
    if (lidChat !== chatId) this.memo.delete(instanceId, lidChat);
  }

  forget(instanceId: string | null): void {
    this.memo.forget(instanceId);
  }

  /** The chat records that hold a chat: its own, and (merged) the ones under its lid or number. */
  private async family(instanceId: string, chatId: string): Promise<string[]> {
    return (await chatFamily(this.identity, instanceId, chatId)).ids;
  }

  /** `read` (nothing unread, not marked) or `unread` (marked) on each record of the chat. */
  async mark(instanceId: string, chatId: string, mark: "read" | "unread"): Promise<void> {
    const pipeline = this.redis.pipeline() as unknown as {
      gwRmMarkChat(state: string, mark: "read" | "unread"): void;
      exec(): Promise<unknown>;
    };
    for (const id of await this.family(instanceId, chatId)) pipeline.gwRmMarkChat(this.stateKey(instanceId, id), mark);
    await pipeline.exec();
  }

  /**
   * Spec 4.5 `GET /chats` and the overview: chat records, optionally merged across lid and number.
   * By last message: a page of the chat order sets (merged: the visible one; not merged: it and
   * the merged one), then the records and states; records that expired (retention) leave the sets
   * and the page is read again. By name or id: the index. Given ids: those chats, sorted here.
   */
  async list(instance: Instance, q: ChatQuery): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    if (q.limit <= 0) return [];
    const desc = q.sortOrder !== "asc";
    let rows: Row[];
    if (q.ids) {
      if (q.ids.length === 0) return [];
      const all = new Set<string>();
      for (const id of q.ids) {
        if (q.merge) for (const x of await this.family(instance.id, id)) all.add(x);
        else all.add(id);
      }
      const found = (await this.rows(instance.id, [...all])).filter((r) => !q.merge || !r.chat.merged);
      const by = (r: Row) =>
        q.sortBy === "lastMessageAt"
          ? (r.state?.lastMessageAt ?? 0)
          : q.sortBy === "name"
            ? r.chat.sortName
            : r.chat.sortId;
      found.sort((a, b) => {
        const [x, y] = [by(a), by(b)];
        const c = x < y ? -1 : x > y ? 1 : a.chat.chatId < b.chat.chatId ? -1 : a.chat.chatId > b.chat.chatId ? 1 : 0;
        return desc ? -c : c;
      });
      rows = found.slice(q.offset, q.offset + q.limit);
    } else if (q.sortBy === "lastMessageAt") {
      rows = await this.orderPage(instance.id, q.merge, desc, q.offset, q.limit);
    } else {
      const parts = [tagQuery("instanceId", [instance.id])];
      if (q.merge) parts.push("@merged:{false}");
      const chats = (await this.repo
        .searchRaw(parts.join(" "))
        .sortBy(CHAT_SORT_FIELD[q.sortBy], desc ? "DESC" : "ASC")
        .return.page(q.offset, q.limit)) as unknown as ChatDoc[];
      const states = await this.states(
        instance.id,
        chats.map((c) => c.chatId),
      );
      rows = chats.map((chat, i) => ({ chat, state: states[i] ?? null }));
    }
    return this.chatViews(instance, rows, q.merge);
  }

  /**
   * A page of the chat order sets, with each chat's record and state. Not merged: the visible and
   * the merged order together (the first offset + limit of each, merged here: score, then id).
   */
  private async orderPage(instanceId: string, merge: boolean, desc: boolean, offset: number, limit: number) {
    const sets = [this.k.readChatOrderVisible(instanceId), ...(merge ? [] : [this.k.readChatOrderMerged(instanceId)])];
    for (let attempt = 0; ; attempt++) {
      const [from, to] =
        sets.length === 1 ? [String(offset), String(offset + limit - 1)] : ["0", String(offset + limit - 1)];
      const p = this.redis.pipeline();
      for (const set of sets) {
        if (desc) p.zrange(set, from, to, "REV", "WITHSCORES");
        else p.zrange(set, from, to, "WITHSCORES");
      }
      const scores = new Map<string, number>();
      for (const [err, reply] of (await p.exec()) ?? []) {
        if (err) throw err;
        const flat = reply as string[];
        for (let i = 0; i < flat.length; i += 2) scores.set(flat[i]!, Number(flat[i + 1]));
      }
      let ids = [...scores.keys()];
      if (sets.length > 1) {
        const dir = desc ? -1 : 1;
        ids.sort((a, b) => dir * (scores.get(a)! - scores.get(b)! || (a < b ? -1 : a > b ? 1 : 0)));
        ids = ids.slice(offset, offset + limit);
      }
      const rows = await this.rows(instanceId, ids);
      const gone = ids.filter((id) => !rows.some((r) => r.chat.chatId === id));
      if (gone.length === 0 || attempt >= 5) return rows;
      // Records gone (retention): out of both order sets, and the page again.
      await this.redis
        .multi()
        .zrem(this.k.readChatOrderVisible(instanceId), ...gone)
        .zrem(this.k.readChatOrderMerged(instanceId), ...gone)
        .exec();
    }
  }

  /** The records of `chatIds` that exist, in that order, with their states. */
  private async rows(instanceId: string, chatIds: string[]): Promise<Row[]> {
    if (chatIds.length === 0) return [];
    const [raw, states] = await Promise.all([
      this.redis.call("JSON.MGET", ...chatIds.map((id) => this.recordKey(instanceId, id)), "$") as Promise<
        (string | null)[]
      >,
      this.states(instanceId, chatIds),
    ]);
    return raw.flatMap((r, i) => {
      const chat = r ? (JSON.parse(r) as ChatDoc[])[0] : undefined;
      return chat ? [{ chat, state: states[i] ?? null }] : [];
    });
  }

  private async states(instanceId: string, chatIds: string[]): Promise<(ChatState | null)[]> {
    if (chatIds.length === 0) return [];
    const p = this.redis.pipeline();
    for (const id of chatIds) {
      p.hmget(
        this.stateKey(instanceId, id),
        "lastMessageAt",
        "timestamp",
        "lastMessageId",
        "lastMessage",
        "unreadCount",
        "markedUnread",
      );
    }
    return ((await p.exec()) ?? []).map(([err, reply]) => {
      if (err) throw err;
      const [at, ts, id, last, unread, marked] = reply as (string | null)[];
      if (at === null || at === undefined) return null;
      return {
        lastMessageAt: Number(at),
        timestamp: Number(ts ?? 0),
        lastMessageId: id ?? "",
        lastMessage: last ? (JSON.parse(last) as LastMessageSummary) : null,
        unreadCount: Number(unread ?? 0),
        markedUnread: marked === "1",
      };
    });
  }

  private async chatViews(
    instance: Instance,
    rows: Row[],
    merge: boolean,
  ): Promise<{ chat: ChatDoc; view: ChatView }[]> {
    const lastDocs = instance.settings.storage.messages
      ? await this.docs(
          instance.id,
          rows.map((r) => r.state?.lastMessageId || "none"),
        )
      : rows.map(() => null);
    const lastViews = await this.views.views(
      instance,
      lastDocs.filter((d): d is MessageDoc => d !== null),
      false,
    );
    let j = 0;
    const out: { chat: ChatDoc; view: ChatView }[] = [];
    const seen = new Set<string>();
    for (const [i, { chat, state }] of rows.entries()) {
      const last = lastDocs[i] ? lastViews[j++]! : null;
      // Merged: a chat still kept under a lid whose number is known now shows under the number.
      const id = merge ? ((await this.identity.rewrite(instance.id, chat.chatId)) ?? chat.chatId) : chat.chatId;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({
        chat,
        view: {
          id,
          name: chat.name,
          lid: chat.lid ?? (chat.chatId.endsWith("@lid") ? chat.chatId : null),
          isGroup: chat.isGroup,
          // Spec 1 rule 7: a signed link that answers 404 while no picture is visible.
          picture: chat.picture ?? this.mediaLinks.avatar(instance.id, id),
          timestamp: state?.timestamp ?? 0,
          unreadCount: state?.unreadCount ?? 0,
          markedUnread: state?.markedUnread ?? false,
          lastMessage: last ?? state?.lastMessage ?? null,
        },
      });
    }
    return out;
  }

  /** One chat record (merged: the one that shows the person), or null. */
  async get(instance: Instance, chatId: string): Promise<ChatView | null> {
    for (const id of await this.family(instance.id, chatId)) {
      const [row] = await this.rows(instance.id, [id]);
      if (row && !row.chat.merged) return (await this.chatViews(instance, [row], true))[0]?.view ?? null;
    }
    return null;
  }
}
