import type { BaileysEventMap, GroupMetadata, WASocket } from "@whiskeysockets/baileys";
import { BoundedCache } from "./connection/auth-state.ts";

/**
 * What the session knows of groups, shared by Baileys' group sends (`cachedGroupMetadata`), sends'
 * `mentions: ["all"]` and received messages' `chatName`: each group's metadata as the network
 * answered it, kept current by the group events, and subjects.
 *
 * Without it every group send asks the network for the group's metadata first (Baileys
 * lib/Socket/messages-send.js:501-506): a round trip per message and `rate-overlimit` under
 * volume. A stale entry is worse than none (a member added since would not get the message), so
 * whatever changes who receives a send or how drops the entry, and the next send asks again.
 */
export class GroupCache {
  /**
   * Baileys' own `GroupMetadata` per group (participants, `addressingMode`, `ephemeralDuration`).
   * The TTL bounds what a missed event could leave stale.
   */
  private readonly metadataCache = new BoundedCache(500, 5 * 60_000);
  /** Group subjects (`chatName`), refreshed by `groups.update`; they outlive the metadata. */
  private readonly subjects = new BoundedCache(500, 30 * 60_000);
  /** Queries on the way, one per group: concurrent sends on the same socket share it. */
  private readonly inflight = new Map<string, { sock: WASocket; query: Promise<GroupMetadata> }>();

  /**
   * A group's metadata: cached, else one metadata query (its answer kept). Baileys' group sends
   * ask this (`cachedGroupMetadata`): a failed query fails the send as Baileys' own would.
   */
  metadata(sock: WASocket, jid: string): Promise<GroupMetadata> {
    const cached = this.metadataCache.get<GroupMetadata>(jid);
    if (cached) return Promise.resolve(cached);
    const pending = this.inflight.get(jid);
    if (pending?.sock === sock) return pending.query;
    const query: Promise<GroupMetadata> = sock
      .groupMetadata(jid)
      .then((metadata) => {
        // Dropped while on the way (the group changed): the answer may predate the change.
        if (this.inflight.get(jid)?.query === query) this.store(metadata);
        return metadata;
      })
      .finally(() => {
        if (this.inflight.get(jid)?.query === query) this.inflight.delete(jid);
      });
    this.inflight.set(jid, { sock, query });
    return query;
  }

  /** A group's participant JIDs (`mentions: ["all"]`, a subject lookup), from {@link metadata}. */
  async participants(sock: WASocket, jid: string): Promise<string[]> {
    return (await this.metadata(sock, jid)).participants.map((p) => p.id);
  }

  /** A group's subject, when known. */
  subject(jid: string): string | undefined {
    return this.subjects.get<string>(jid);
  }

  /** How a group addresses its members (`lid` or `pn`) when its metadata is cached. */
  addressingMode(jid: string): "lid" | "pn" | undefined {
    const mode = this.metadataCache.get<GroupMetadata>(jid)?.addressingMode;
    return mode === "lid" || mode === "pn" ? mode : undefined;
  }

  /** Keeps the cache current with a socket's group events. */
  listen(sock: WASocket): void {
    // Created, or this number added to it: the notification carries the whole metadata.
    sock.ev.on("groups.upsert", (groups) => {
      for (const g of groups) this.store(g);
    });
    sock.ev.on("groups.update", (updates) => {
      for (const u of updates) this.update(u);
    });
    // Who receives a send changed: patching by the event's ids could miss (a member known by
    // LID in one and by number in the other), so the next send asks again.
    sock.ev.on("group-participants.update", ({ id }) => this.drop(id));
    // The disappearing-messages timer comes as a chat update; sends carry it (`expiration`).
    sock.ev.on("chats.update", (chats: BaileysEventMap["chats.update"]) => {
      for (const c of chats) {
        if (c.id && c.ephemeralExpiration !== undefined) this.drop(c.id);
      }
    });
  }

  private update(u: Partial<GroupMetadata>): void {
    if (!u.id) return;
    if (u.subject) this.subjects.set(u.id, u.subject);
    // A groups list or the server's "groups changed" hint echoes each group's whole metadata.
    if (Array.isArray(u.participants)) {
      this.store(u as GroupMetadata);
      return;
    }
    // A subject, description or setting: the rest of the entry still holds.
    const cached = this.metadataCache.get<GroupMetadata>(u.id);
    this.inflight.delete(u.id);
    if (cached) this.metadataCache.set(u.id, { ...cached, ...groupFields(u) });
  }

  private store(metadata: GroupMetadata): void {
    this.inflight.delete(metadata.id);
    this.metadataCache.set(metadata.id, groupFields(metadata));
    if (metadata.subject) this.subjects.set(metadata.id, metadata.subject);
  }

  private drop(jid: string): void {
    this.metadataCache.del(jid);
    this.inflight.delete(jid);
  }
}

/**
 * The fields of an update that describe the group: who made the change (`author…`) is the
 * event's, and an absent field is no change.
 */
function groupFields<T extends Partial<GroupMetadata>>(u: T): T {
  const out: Partial<GroupMetadata> = {};
  for (const [k, v] of Object.entries(u)) {
    if (v !== undefined && !k.startsWith("author")) (out as Record<string, unknown>)[k] = v;
  }
  return out as T;
}
