import type { ProviderContext } from "./contract.ts";

/**
 * How the network addresses each one-to-one conversation: by the contact's privacy id (LID) or by
 * its phone number (PN). On the real network a conversation moved to LID refuses sends addressed
 * to the PN (accepted, then acked error 463), and the other way round (Baileys#2683, #2698;
 * FelixIsaac/whatsapp-mcp-extended#67): the right address is the one the network uses for that
 * conversation, which only what arrives from it tells (Baileys: `key.addressingMode`,
 * `remoteJidAlt`; simnet: the frame's `addressingMode`).
 *
 * The rule (docs/sending.md "Which address a message goes to"): the LID when the conversation is
 * on the LID and the pair is known, else the number when known, else the id as given.
 *
 * Kept in the provider's records (`addressing`: `<digits>@c.us` → `{mode, lid}`, `<id>@lid` →
 * `{mode, phone}`), so a new owner of the instance routes the same way; an in-memory map spares
 * the Redis read on every send. Ids are the gateway's (`<digits>@c.us`, `<id>@lid`).
 */
export type AddressingMode = "lid" | "pn";

export const ADDRESSING_RECORD = "addressing";

interface Entry {
  mode?: AddressingMode;
  /** The other id of the pair: a LID for a number's entry, digits for a LID's. */
  lid?: string;
  phone?: string;
}

export interface AddressingLookups {
  /** The LID of a number (`<digits>@c.us` → `<id>@lid`) the provider knows itself (Baileys' mapping store). */
  lidForPhone?(phone: string): Promise<string | null>;
  /** The number behind a LID (digits), the provider's own knowledge. */
  phoneForLid?(lid: string): Promise<string | null>;
}

const CACHE_LIMIT = 5_000;

export const isLidId = (id: string) => /^\d{5,25}@lid$/.test(id);
export const isPnId = (id: string) => /^\d{5,20}@c\.us$/.test(id);
const digitsOf = (id: string) => id.split("@")[0]!;
/** The number of a `<digits>@c.us` id (its digits); "" for any other id. */
export const phoneOf = (id: string) => (id.endsWith("@c.us") ? digitsOf(id) : "");

export class ConversationAddressing {
  /** Entries read or written, newest last (a miss is cached as `{}`). */
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly ctx: Pick<ProviderContext, "records" | "identity">,
    private readonly lookups: AddressingLookups = {},
  ) {}

  /**
   * What a message of the conversation told: its mode (when it says) and the pair, when both ids
   * are known. Written only when something changed (one inbound message need not cost a write).
   */
  async learn(pair: { phone: string | null; lid: string | null }, mode?: AddressingMode): Promise<void> {
    const pn = pair.phone ? `${digitsOf(pair.phone)}@c.us` : null;
    const lid = pair.lid && isLidId(pair.lid) ? pair.lid : null;
    const writes: Record<string, string> = {};
    if (pn) {
      const next: Entry = { ...(await this.entry(pn)), ...(mode ? { mode } : {}), ...(lid ? { lid } : {}) };
      if (this.changed(pn, next)) writes[pn] = JSON.stringify(next);
    }
    if (lid) {
      const next: Entry = {
        ...(await this.entry(lid)),
        ...(mode ? { mode } : {}),
        ...(pn ? { phone: digitsOf(pn) } : {}),
      };
      if (this.changed(lid, next)) writes[lid] = JSON.stringify(next);
    }
    if (Object.keys(writes).length === 0) return;
    for (const [k, v] of Object.entries(writes)) this.remember(k, JSON.parse(v) as Entry);
    await this.ctx.records.put(ADDRESSING_RECORD, writes);
  }

  /** Where a message to `chatId` goes (the rule above). Groups, channels and malformed ids as given. */
  async destination(chatId: string): Promise<string> {
    if (isPnId(chatId)) {
      const entry = await this.entry(chatId);
      if (entry.mode !== "lid") return chatId;
      return (await this.lidOf(chatId, entry)) ?? chatId;
    }
    if (isLidId(chatId)) {
      const entry = await this.entry(chatId);
      if (entry.mode === "lid") return chatId;
      const phone = await this.phoneOf(chatId, entry);
      return phone ? `${phone}@c.us` : chatId;
    }
    return chatId;
  }

  /** The contact's other address (PN ⇄ LID), or null when the pair is unknown. */
  async alternate(chatId: string): Promise<string | null> {
    if (isPnId(chatId)) return this.lidOf(chatId, await this.entry(chatId));
    if (isLidId(chatId)) {
      const phone = await this.phoneOf(chatId, await this.entry(chatId));
      return phone ? `${phone}@c.us` : null;
    }
    return null;
  }

  /** The mode learnt for a conversation (either id of the pair), if any. */
  async mode(chatId: string): Promise<AddressingMode | undefined> {
    return (await this.entry(chatId)).mode;
  }

  /** The LID of a number: what the conversation told, the provider's own store, else the instance's pairs (spec 1 rule 3). */
  private async lidOf(pn: string, entry: Entry): Promise<string | null> {
    if (entry.lid) return entry.lid;
    const own = await this.lookups.lidForPhone?.(pn).catch(() => null);
    if (own && isLidId(own)) return own;
    const known = await this.ctx.identity.lidOf(digitsOf(pn)).catch(() => null);
    return known && isLidId(known) ? known : null;
  }

  private async phoneOf(lid: string, entry: Entry): Promise<string | null> {
    if (entry.phone) return entry.phone;
    const own = await this.lookups.phoneForLid?.(lid).catch(() => null);
    if (own) return digitsOf(own);
    const rewritten = await this.ctx.identity.rewrite(lid).catch(() => lid);
    return isPnId(rewritten) ? digitsOf(rewritten) : null;
  }

  private async entry(id: string): Promise<Entry> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    let entry: Entry = {};
    try {
      const raw = await this.ctx.records.get(ADDRESSING_RECORD, id);
      if (raw) entry = parseEntry(raw);
    } catch {
      return {}; // not cached: the next send asks again
    }
    this.remember(id, entry);
    return entry;
  }

  private changed(id: string, next: Entry): boolean {
    const prev = this.cache.get(id) ?? {};
    return prev.mode !== next.mode || prev.lid !== next.lid || prev.phone !== next.phone;
  }

  private remember(id: string, entry: Entry): void {
    this.cache.delete(id);
    this.cache.set(id, entry);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }
}

function parseEntry(raw: string): Entry {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    return {
      ...(v.mode === "lid" || v.mode === "pn" ? { mode: v.mode } : {}),
      ...(typeof v.lid === "string" && isLidId(v.lid) ? { lid: v.lid } : {}),
      ...(typeof v.phone === "string" && /^\d{5,20}$/.test(v.phone) ? { phone: v.phone } : {}),
    };
  } catch {
    return {};
  }
}
