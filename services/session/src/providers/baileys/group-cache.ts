import type { WASocket } from "@whiskeysockets/baileys";
import { BoundedCache } from "./auth-state.ts";

/**
 * What the session knows of groups, shared by sends (`mentions: ["all"]`) and received messages
 * (`chatName`): participants and subjects from metadata queries, kept current by the group events.
 */
export class GroupCache {
  /** Participant JIDs per group for `mentions: ["all"]`; dropped when the group changes. */
  private readonly participantsCache = new BoundedCache(200, 5 * 60_000);
  /** Group subjects (`chatName`), refreshed by `groups.update`. */
  private readonly subjects = new BoundedCache(500, 30 * 60_000);

  /** A group's participant JIDs: cached, else one metadata query (which also tells its subject). */
  async participants(sock: WASocket, jid: string): Promise<string[]> {
    const cached = this.participantsCache.get<string[]>(jid);
    if (cached) return cached;
    const metadata = await sock.groupMetadata(jid);
    const ids = metadata.participants.map((p) => p.id);
    this.participantsCache.set(jid, ids);
    if (metadata.subject) this.subjects.set(jid, metadata.subject);
    return ids;
  }

  /** A group's subject, when known. */
  subject(jid: string): string | undefined {
    return this.subjects.get<string>(jid);
  }

  /** Keeps the cache current with a socket's group events. */
  listen(sock: WASocket): void {
    sock.ev.on("group-participants.update", ({ id }) => this.participantsCache.del(id));
    sock.ev.on("groups.update", (updates) => {
      for (const u of updates) {
        if (!u.id) continue;
        this.participantsCache.del(u.id);
        if (u.subject) this.subjects.set(u.id, u.subject);
      }
    });
  }
}
