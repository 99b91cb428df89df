import {
  type ExistsResult,
  invalid,
  type OutboundContent,
  parseMessageId,
  type SendOptions,
  type SendResult,
} from "@gw/contracts";
import type { AckStatus, ProviderContext } from "../../contract.ts";
import { type SimAckFrame, SimAddressing } from "../addressing.ts";
import type { SimMessageFrame } from "../inbound.ts";

/**
 * The sim session's send paths: a message out (mentions of `all` expanded, the address the
 * conversation takes, a status post's audience), the number check, read receipts, and the acks of
 * what was sent, where a refusal goes once more to the contact's other address before it is
 * reported (addressing.ts). The requests themselves are simnet's (requests.ts).
 */
export class SimSender {
  /** Which address each conversation takes, and one retry on the other when refused (addressing.ts). */
  private readonly addressing: SimAddressing;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly request: (op: string, args: unknown) => Promise<unknown>,
  ) {
    this.addressing = new SimAddressing(ctx);
  }

  async send(chatId: string, content: OutboundContent, options: SendOptions = {}): Promise<SendResult> {
    const { quotedId, id, forwarded, status } = options; // derivedId and quotedApiId are ours, not the network's
    let mentions = options.mentions;
    if (mentions?.includes("all")) {
      // `["all"]` (spec 4.4): every participant of the group, as the network wants them listed.
      if (!chatId.endsWith("@g.us")) {
        throw invalid("mentions", '"all" só vale em grupos');
      }
      const group = (await this.request("group-metadata", { groupId: chatId })) as { participants: { id: string }[] };
      mentions = group.participants.map((p) => p.id);
    }
    // A status audience by LID where known; a person where the conversation is (addressing.ts).
    const audience = status ? await this.addressing.audience(status.audience) : undefined;
    const to = await this.addressing.destination(chatId);
    // Fields left undefined are left out of the frame by JSON.stringify.
    const args = {
      message: content,
      quotedId,
      mentions,
      forwarded,
      status: status && audience ? { ...status, audience } : status, // a status post's audience and style (spec 4.8)
    };
    const sent = (await this.request("send", { ...args, to, id })) as SendResult;
    this.addressing.track(sent.id, to, args);
    // The number's form when either id is one (spec 1 rule 3).
    return sent.chatId.endsWith("@c.us") || !chatId.trim().endsWith("@c.us")
      ? sent
      : { ...sent, chatId: chatId.trim() };
  }

  checkExists(phone: string): Promise<ExistsResult> {
    // The pair it reveals is learnt by the manager (identity), where addressing.ts finds it.
    return this.request("check-exists", { phone }) as Promise<ExistsResult>;
  }

  async markRead(chatId: string, messageIds: string[]): Promise<void> {
    // API ids (`{fromMe}_{chatId}_{id}`) or bare network ids: simnet knows the network's. A
    // group's receipt names the sender, so a bare id is refused there, as the Baileys provider
    // refuses it (the real network needs the participant).
    const ids = messageIds.map((v) => {
      const parsed = parseMessageId(v);
      if (parsed) return parsed.id;
      if (chatId.endsWith("@g.us")) {
        throw invalid(
          "messageIds",
          "em grupos, use o id completo {fromMe}_{chatId}_{id}_{participant}",
          "Em grupos, use o id completo da mensagem (com o participante).",
        );
      }
      return v;
    });
    if (ids.length > 0) await this.request("read", { ids });
  }

  /** A message that arrived tells how its conversation is addressed (addressing.ts). */
  learn(f: SimMessageFrame): Promise<void> {
    return this.addressing.learn(f);
  }

  /** An ack: a refusal goes once more to the contact's other address before it is reported (addressing.ts). */
  async onAck(f: SimAckFrame): Promise<void> {
    const id = String(f.id);
    const error = await this.addressing.onAck(f, async (to, args) => {
      await this.request("send", { ...args, to, id });
    });
    if (error === "retried") return;
    this.ctx.emit({
      type: "ack",
      id,
      chatId: String(f.chatId),
      status: f.status as AckStatus,
      timestamp: Number(f.timestamp),
      ...(error !== undefined ? { error } : {}),
    });
  }
}
