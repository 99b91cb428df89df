import { AddressFallback, type NetworkRejection } from "../address-fallback.ts";
import { ConversationAddressing, isLidId, isPnId } from "../addressing.ts";
import type { ProviderContext } from "../contract.ts";
import type { SimMessageFrame } from "./inbound.ts";

/** simnet's `ack` frame (docs/simnet.md): `error` with `failed` (463, 479: its addressing rules). */
export interface SimAckFrame {
  id: string;
  chatId: string;
  status: string;
  timestamp: number;
  error?: { code?: number; message?: string };
}

/** Base64 characters of a file kept for a retry (~750 KB of bytes). */
const MAX_KEPT_MEDIA = 1_000_000;

/** What a send needs to go again to the other address (the `send` request's args but `to`). */
export type SimResend = Record<string, unknown>;

/**
 * The sim provider's side of addressing (providers/addressing.ts, address-fallback.ts): the same
 * rule as on Baileys — send where the conversation is, retry once on the other address on 463,
 * report a refusal as `network_rejected` — with simnet's frames as the source of what it learns.
 */
export class SimAddressing {
  private readonly addressing: ConversationAddressing;
  private readonly fallback: AddressFallback;

  constructor(ctx: Pick<ProviderContext, "records" | "identity">) {
    this.addressing = new ConversationAddressing(ctx);
    this.fallback = new AddressFallback(this.addressing);
  }

  /** A one-to-one message tells the pair, and its conversation's addressing when it has one (`addressingMode`). */
  async learn(f: SimMessageFrame): Promise<void> {
    if (f.isGroup) return;
    const phone = isPnId(f.chatId) ? f.chatId : null;
    const lid = f.chatLid && isLidId(f.chatLid) ? f.chatLid : isLidId(f.chatId) ? f.chatId : null;
    if (!phone && !lid) return;
    const mode = f.addressingMode === "lid" || f.addressingMode === "pn" ? f.addressingMode : undefined;
    await this.addressing.learn({ phone, lid }, mode);
  }

  destination(chatId: string): Promise<string> {
    return this.addressing.destination(chatId.trim());
  }

  /**
   * A send to retry if refused. Its content is kept in memory (simnet keeps no copy we could ask
   * for) unless it carries a large file: such a send is reported refused without a retry.
   */
  track(id: string, to: string, resend: SimResend): void {
    const media = (resend.message as { media?: { data?: unknown } } | undefined)?.media?.data;
    const heavy = typeof media === "string" && media.length > MAX_KEPT_MEDIA;
    this.fallback.track(id, to, heavy ? undefined : resend);
  }

  /**
   * An ack: `retried` when a refusal went again to the other address (nothing to report yet), else
   * the `error` its `failed` carries (undefined for the others).
   */
  async onAck(
    f: SimAckFrame,
    resend: (to: string, args: SimResend) => Promise<void>,
  ): Promise<"retried" | NetworkRejection | string | undefined> {
    if (f.status !== "failed") {
      if (f.status !== "sent") await this.fallback.onDelivered(f.id);
      return undefined;
    }
    const code = typeof f.error?.code === "number" ? f.error.code : undefined;
    const outcome = await this.fallback.onRejected(f.id, code, (to, args) => {
      if (!args) throw new Error("the message's file was not kept for a retry");
      return resend(to, args as SimResend);
    });
    if (outcome === "retried" || code !== undefined) return outcome;
    return f.error?.message || "failed";
  }

  /**
   * A status audience as simnet's rules want it from an account that has a LID (all of simnet's):
   * each member by LID where the pair is known (a LID account naming numbers is refused, 479).
   */
  async audience(ids: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of ids) {
      const pn = /^\d{5,20}$/.test(id.trim()) ? `${id.trim()}@c.us` : id.trim();
      out.push((isPnId(pn) ? await this.addressing.alternate(pn) : null) ?? id);
    }
    return out;
  }
}
