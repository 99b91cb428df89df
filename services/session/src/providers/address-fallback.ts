import { type AddressingMode, type ConversationAddressing, isLidId, isPnId } from "./addressing.ts";

/**
 * A message the network accepted and then refused, as the `error` of its `failed` ack
 * (`message.ack`): `code` is the gateway's (`network_rejected`), `networkCode` the network's, and
 * the message names the likely cause so the client knows what to do next.
 */
export interface NetworkRejection {
  code: "network_rejected";
  networkCode: number;
  message: string;
}

/** The network's ack error codes we know the cause of (Baileys `SERVER_ERROR_CODES`, reference "LID addressing"). */
export const ADDRESS_REFUSED = 463;
export const STATUS_ADDRESSING_REFUSED = 479;

const CAUSES: Record<number, string> = {
  [ADDRESS_REFUSED]:
    "o contato ainda não pode ser alcançado por este número: primeiro contato recusado (o contato nunca escreveu), conta restrita ou endereço (LID/número) que a conversa não usa",
  [STATUS_ADDRESSING_REFUSED]:
    "endereçamento recusado pela rede (por exemplo, um status com a audiência em números de telefone numa conta migrada para LID)",
};

export function networkRejection(networkCode: number, note?: string): NetworkRejection {
  const cause = CAUSES[networkCode] ?? "a rede de mensagens recusou a mensagem depois de aceitá-la";
  return {
    code: "network_rejected",
    networkCode,
    message: `A rede recusou a mensagem (erro ${networkCode}): ${cause}.${note ? ` ${note}` : ""}`,
  };
}

/** The network's numeric code in an ack's error parameters (`["463"]`, `["463", "…"]`), else undefined. */
export function networkCodeOfAck(
  params: readonly (string | null | undefined)[] | null | undefined,
): number | undefined {
  const first = params?.[0];
  return first && /^\d{3}$/.test(first) ? Number(first) : undefined;
}

interface Tracked {
  to: string;
  retried: boolean;
  /** What the provider needs to send it again (its own form), when it keeps it here. */
  payload?: unknown;
}

const LIMIT = 10_000;
const TTL_MS = 60 * 60_000;

/**
 * One-to-one sends, for one retry on the contact's other address when the network refuses the
 * first with error 463: a LID-migrated contact refuses its number, a contact still on its number
 * refuses the LID. Once only: a second refusal is the contact's (a first contact refused, a
 * restricted account), and retrying again would count as another reach-out (reference §8.2).
 * In memory for an hour: an ack that reaches another owner after a handover is reported as it is.
 */
export class AddressFallback {
  private readonly sends = new Map<string, Tracked & { at: number }>();

  constructor(private readonly addressing: ConversationAddressing) {}

  /** A send to a person (`<digits>@c.us` or `<id>@lid`) the network accepted. */
  track(id: string, to: string, payload?: unknown): void {
    if (!isPnId(to) && !isLidId(to)) return;
    this.sends.delete(id);
    this.sends.set(id, { to, retried: false, payload, at: Date.now() });
    if (this.sends.size > LIMIT) this.sends.delete(this.sends.keys().next().value as string);
  }

  /**
   * A `failed` ack of message `id` with the network's `networkCode`. `resend` sends it again to
   * the other address under the same id; answers `retried` (report nothing yet), or the error the
   * `failed` ack carries.
   */
  async onRejected(
    id: string,
    networkCode: number | undefined,
    resend: (to: string, payload: unknown) => Promise<void>,
  ): Promise<"retried" | NetworkRejection> {
    const code = networkCode ?? 0;
    const sent = this.live(id);
    if (code !== ADDRESS_REFUSED || !sent) return networkRejection(code);
    if (sent.retried) {
      this.sends.delete(id);
      return networkRejection(code, "O outro endereço do contato também foi tentado.");
    }
    const other = await this.addressing.alternate(sent.to);
    if (!other) return networkRejection(code, "Não há outro endereço conhecido do contato para tentar.");
    sent.retried = true;
    const first = sent.to;
    sent.to = other;
    try {
      await resend(other, sent.payload);
      return "retried";
    } catch (err) {
      this.sends.delete(id);
      const why = err instanceof Error ? err.message : String(err);
      return networkRejection(code, `O reenvio para ${other} (em vez de ${first}) falhou: ${why.slice(0, 120)}`);
    }
  }

  /**
   * A delivery ack: a send that went through on its other address teaches the conversation's mode
   * (the next send goes there at once).
   */
  async onDelivered(id: string): Promise<void> {
    const sent = this.live(id);
    if (!sent) return;
    this.sends.delete(id);
    if (!sent.retried) return;
    const mode: AddressingMode = isLidId(sent.to) ? "lid" : "pn";
    const other = await this.addressing.alternate(sent.to);
    const pair = isLidId(sent.to) ? { lid: sent.to, phone: other } : { phone: sent.to, lid: other };
    await this.addressing.learn(pair, mode);
  }

  /** Where a tracked send went last (its other address after a retry). */
  destination(id: string): string | undefined {
    return this.live(id)?.to;
  }

  private live(id: string): (Tracked & { at: number }) | undefined {
    const sent = this.sends.get(id);
    if (sent && Date.now() - sent.at > TTL_MS) {
      this.sends.delete(id);
      return undefined;
    }
    return sent;
  }
}
