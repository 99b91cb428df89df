import {
  type HeardPresence,
  heardPresence,
  PRESENCE_RECORD,
  PRESENCE_SUB_PREFIX,
  PRESENCE_SUBSCRIPTION_TTL_MS,
  type PresenceState,
} from "@gw/contracts";
import type { ProviderContext } from "./contract.ts";

/** A presence heard in a chat: the network's state, who (the chat itself one to one, the member in groups). */
export interface Heard {
  chatId: string;
  participant: string;
  state: PresenceState;
  lastSeen?: number | null | undefined;
}

/**
 * What the standard providers keep of an instance's presence (docs/profile-presence.md), in their
 * record `presence` (contracts `PRESENCE_RECORD`): the account's own presence as last set and the
 * chats it subscribed to, each until its end. A network subscription lasts only as long as the
 * connection, so on every connection the provider applies both again ({@link load}); presence
 * heard for a chat whose subscription ended is not reported ({@link report}).
 */
export class PresenceBook {
  private readonly subs = new Map<string, number>();
  private phone = "";
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ProviderContext,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The record of the account now connected (a record of another account, from before a new
   * pairing, is dropped): the own presence to set again and the chats to subscribe to again.
   */
  async load(phone: string): Promise<{ self: "available" | "unavailable" | null; chats: string[] }> {
    const { records } = this.ctx;
    const all = await records.all(PRESENCE_RECORD);
    this.phone = phone;
    if (all.account && all.account !== phone) {
      this.subs.clear();
      await records.remove(PRESENCE_RECORD, Object.keys(all));
      await records.put(PRESENCE_RECORD, { account: phone });
      return { self: null, chats: [] };
    }
    const ended: string[] = [];
    for (const [field, value] of Object.entries(all)) {
      if (!field.startsWith(PRESENCE_SUB_PREFIX)) continue;
      const until = Number(value);
      if (Number.isFinite(until) && until > this.now()) this.subs.set(field.slice(PRESENCE_SUB_PREFIX.length), until);
      else ended.push(field);
    }
    await records.remove(PRESENCE_RECORD, ended);
    const self = all.self === "available" || all.self === "unavailable" ? all.self : null;
    return { self, chats: [...this.subs.keys()] };
  }

  /** The account's own presence was set on the network. */
  async setSelf(state: "available" | "unavailable"): Promise<void> {
    await this.ctx.records.put(PRESENCE_RECORD, { ...(this.phone ? { account: this.phone } : {}), self: state });
  }

  /**
   * A subscription (new or renewed) to `chatId`, as the network knows it. Taken before the network
   * is asked (its answer may bring the contact's presence first); the undo puts back what was there.
   */
  async subscribe(chatId: string): Promise<() => Promise<void>> {
    const field = `${PRESENCE_SUB_PREFIX}${chatId}`;
    const before = this.subs.get(chatId);
    const until = this.now() + PRESENCE_SUBSCRIPTION_TTL_MS;
    this.subs.set(chatId, until);
    await this.ctx.records.put(PRESENCE_RECORD, {
      ...(this.phone ? { account: this.phone } : {}),
      [field]: String(until),
    });
    return async () => {
      if (before === undefined) {
        this.subs.delete(chatId);
        await this.ctx.records.remove(PRESENCE_RECORD, [field]);
      } else {
        this.subs.set(chatId, before);
        await this.ctx.records.put(PRESENCE_RECORD, { [field]: String(before) });
      }
    };
  }

  /** Whether one of the chat's ids (its number form, its lid) is subscribed to now. */
  subscribed(...chatIds: string[]): boolean {
    return chatIds.some((id) => (this.subs.get(id) ?? 0) > this.now());
  }

  /**
   * Reports what was heard in a chat as `presence.update` (spec 6.2; the entry of spec 2.10 with the
   * event's `chatId` and `timestamp`), ids as numbers where known (spec 1 rule 3); nothing for a
   * chat not subscribed to. Reports are made one after the other, in the order heard.
   */
  report(heard: Heard[]): Promise<void> {
    this.chain = this.chain
      .then(() => this.reportNow(heard))
      .catch((err: unknown) => this.ctx.log.warn({ err }, "presence heard but not reported"));
    return this.chain;
  }

  private async reportNow(heard: Heard[]): Promise<void> {
    const { identity } = this.ctx;
    const byChat = new Map<
      string,
      { participant: string; lastKnownPresence: HeardPresence; lastSeen: number | null }[]
    >();
    for (const h of heard) {
      const chatId = await identity.rewrite(h.chatId);
      if (!this.subscribed(chatId, h.chatId)) continue;
      const presence = heardPresence(h.state);
      const item = {
        participant: await identity.rewrite(h.participant),
        lastKnownPresence: presence,
        lastSeen: presence === "offline" && h.lastSeen ? h.lastSeen : null,
      };
      byChat.set(chatId, [...(byChat.get(chatId) ?? []), item]);
    }
    for (const [chatId, presences] of byChat) {
      this.ctx.emit({
        type: "event",
        kind: "presence.update",
        payload: { id: chatId, chatId, presences, timestamp: Math.floor(this.now() / 1000) },
      });
    }
  }
}
