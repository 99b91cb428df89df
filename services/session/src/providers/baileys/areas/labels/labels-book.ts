import { type ProviderLabel, presentLabel } from "@gw/contracts";
import type { ProviderContext } from "../../../contract.ts";
import { brazilianAlternative } from "../../jids.ts";
import { nowSeconds } from "../../seconds.ts";

/**
 * What the instance knows of its labels on the real network. The network has no query for them:
 * a linked device learns them from app-state sync (`label_edit` and `label_jid` mutations, which
 * Baileys emits as `labels.edit` / `labels.association`), at pairing and on every change — the
 * phone's, another device's, and our own (Baileys decodes its own patches back, `emitOwnEvents`).
 * They are kept in the provider's records (hashes under the instance, ctx.records):
 *
 * - `labels`: label id → `{name, color, predefinedId?, deleted?}`; a deleted label stays as a
 *   tombstone so that its id is never given again;
 * - `label-chats`: `<labelId> <chatId>` → unix seconds it was tagged; chats in the gateway's form
 *   (`<digits>@c.us`, `<id>@lid`, `<id>@g.us`) as the network named them.
 *
 * Every change goes through `edit` / `associate`, which store it and announce it (spec 6.2 events)
 * only when something changed: a change heard twice (our own patch decoded back, then our own
 * bookkeeping; a resync) is announced once.
 */

export interface StoredLabel {
  name: string;
  color: number;
  predefinedId?: string;
  deleted?: boolean;
}

export interface LabelEdit {
  id: string;
  name?: string | null;
  color?: number | null;
  deleted?: boolean | null;
  predefinedId?: string | null;
}

const LABELS = "labels";
const CHATS = "label-chats";

const assocKey = (labelId: string, chatId: string) => `${labelId} ${chatId}`;
function parseAssoc(field: string): { labelId: string; chatId: string } | null {
  const at = field.indexOf(" ");
  return at > 0 ? { labelId: field.slice(0, at), chatId: field.slice(at + 1) } : null;
}

function parseLabel(raw: string | null | undefined): StoredLabel | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as StoredLabel;
    return typeof v.name === "string" && Number.isInteger(v.color) ? v : null;
  } catch {
    return null;
  }
}

export function labelBook(ctx: ProviderContext) {
  const { records, identity } = ctx;
  const emit = (kind: "label.upsert" | "label.deleted" | "label.chat.added" | "label.chat.deleted", payload: object) =>
    ctx.emit({ type: "event", kind, payload: payload as Record<string, unknown> });

  /** Every label ever seen, tombstones included. */
  async function all(): Promise<Map<string, StoredLabel>> {
    const out = new Map<string, StoredLabel>();
    for (const [id, raw] of Object.entries(await records.all(LABELS))) {
      const l = parseLabel(raw);
      if (l) out.set(id, l);
    }
    return out;
  }

  async function live(): Promise<ProviderLabel[]> {
    return [...(await all())]
      .filter(([, l]) => !l.deleted)
      .map(([id, l]) => ({ id, name: l.name, color: l.color }))
      .sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
  }

  async function get(id: string): Promise<StoredLabel | null> {
    const l = parseLabel(await records.get(LABELS, id));
    return l && !l.deleted ? l : null;
  }

  async function associations(): Promise<{ labelId: string; chatId: string }[]> {
    return Object.keys(await records.all(CHATS)).flatMap((f) => parseAssoc(f) ?? []);
  }

  /** A chat id as the API shows it (spec 1 rule 3: a lid by number when known), with its lid. */
  async function shown(chatId: string): Promise<{ chatId: string; chatLid: string | null }> {
    return { chatId: await identity.rewrite(chatId), chatLid: chatId.endsWith("@lid") ? chatId : null };
  }

  /** Whether a stored chat is the chat asked for: the same id, by number once a lid is known, or the ninth-digit twin. */
  async function sameChat(stored: string, wanted: string): Promise<boolean> {
    const a = await identity.rewrite(stored);
    const b = await identity.rewrite(wanted);
    if (a === b) return true;
    const digits = /^(\d+)@c\.us$/;
    const da = digits.exec(a)?.[1];
    const db = digits.exec(b)?.[1];
    return !!da && !!db && brazilianAlternative(da) === db;
  }

  function labelEvent(id: string, l: StoredLabel) {
    return { ...presentLabel({ id, name: l.name, color: l.color }), timestamp: nowSeconds() };
  }

  async function chatEvent(kind: "label.chat.added" | "label.chat.deleted", labelId: string, chatId: string) {
    const l = parseLabel(await records.get(LABELS, labelId));
    emit(kind, {
      labelId,
      ...(await shown(chatId)),
      label: l ? presentLabel({ id: labelId, name: l.name, color: l.color }) : null,
      timestamp: nowSeconds(),
    });
  }

  return {
    all,
    live,
    get,
    associations,
    shown,
    sameChat,

    /** The chats a label tags, in the gateway's stored form. */
    async chatsOf(labelId: string): Promise<string[]> {
      return (await associations()).filter((a) => a.labelId === labelId).map((a) => a.chatId);
    },

    /** The associations of a chat, whatever form the network named it in. */
    async chatAssociations(chatId: string): Promise<{ labelId: string; chatId: string }[]> {
      const out: { labelId: string; chatId: string }[] = [];
      for (const a of await associations()) if (await sameChat(a.chatId, chatId)) out.push(a);
      return out;
    },

    /** A `label_edit` mutation: stored, announced when new or changed; a deletion untags its chats first. */
    async edit(e: LabelEdit): Promise<void> {
      const before = parseLabel(await records.get(LABELS, e.id));
      if (e.deleted) {
        if (!before || before.deleted) {
          // Never known (or already gone): keep the id taken, announce nothing.
          if (!before)
            await records.put(LABELS, {
              [e.id]: JSON.stringify({ name: e.name ?? "", color: e.color ?? 0, deleted: true }),
            });
          return;
        }
        for (const chatId of await this.chatsOf(e.id)) {
          await records.remove(CHATS, [assocKey(e.id, chatId)]);
          await chatEvent("label.chat.deleted", e.id, chatId);
        }
        await records.put(LABELS, { [e.id]: JSON.stringify({ ...before, deleted: true }) });
        emit("label.deleted", labelEvent(e.id, before));
        return;
      }
      const next: StoredLabel = {
        name: e.name ?? before?.name ?? "",
        color: e.color ?? before?.color ?? 0,
        ...((e.predefinedId ?? before?.predefinedId)
          ? { predefinedId: String(e.predefinedId ?? before?.predefinedId) }
          : {}),
      };
      if (before && !before.deleted && before.name === next.name && before.color === next.color) return;
      await records.put(LABELS, { [e.id]: JSON.stringify(next) });
      emit("label.upsert", labelEvent(e.id, next));
    },

    /** A `label_jid` mutation (chat in the gateway's form): stored, announced when it changes something. */
    async associate(labelId: string, chatId: string, labeled: boolean): Promise<void> {
      const key = assocKey(labelId, chatId);
      const had = (await records.get(CHATS, key)) !== null;
      if (labeled === had) return;
      if (labeled) await records.put(CHATS, { [key]: String(nowSeconds()) });
      else await records.remove(CHATS, [key]);
      await chatEvent(labeled ? "label.chat.added" : "label.chat.deleted", labelId, chatId);
    },
  };
}

export type LabelBook = ReturnType<typeof labelBook>;
