import {
  type AccountInfo,
  ApiError,
  type Capping,
  type ExistsResult,
  invalid,
  invalidFields,
  isSessionOp,
  type OutboundContent,
  type PasskeyAssertion,
  type PasskeyChallenge,
  type PresenceState,
  SESSION_OPS,
  type SendOptions,
  type SendResult,
  type SessionOpInput,
  type SessionOpName,
  type SessionOpOutput,
  type Timelock,
} from "@gw/contracts";
import { contentHash, storedHash, validationDetails } from "@gw/platform";
import { inSpan, SpanKind, tracingEnabled } from "@gw/platform/telemetry";
import { recordSent } from "./events/sent-record.ts";
import type { Held, SessionManagerOptions } from "./held.ts";
import { ConnectionOwner } from "./ownership/index.ts";
import type { Picture } from "./providers/contract.ts";

/** The operations the gateway asks of an instance's owner (local or over internal tRPC). */
export interface SessionApi {
  stop(instanceId: string): Promise<void>;
  restart(instanceId: string): Promise<void>;
  logout(instanceId: string): Promise<void>;
  qr(instanceId: string): Promise<string>;
  pairingCode(instanceId: string, phone: string, method?: "sms" | "voice"): Promise<string>;
  passkeyChallenge(instanceId: string): Promise<PasskeyChallenge>;
  submitPasskey(instanceId: string, assertion: PasskeyAssertion): Promise<void>;
  passkeyConfirmation(instanceId: string): Promise<{ code: string }>;
  confirmPasskey(instanceId: string): Promise<void>;
  account(instanceId: string): Promise<AccountInfo>;
  capping(instanceId: string): Promise<Capping>;
  timelock(instanceId: string): Promise<Timelock>;
  send(instanceId: string, chatId: string, content: OutboundContent, options?: SendOptions): Promise<SendResult>;
  checkExists(instanceId: string, phone: string): Promise<ExistsResult>;
  markRead(instanceId: string, chatId: string, messageIds: string[]): Promise<void>;
  presence(instanceId: string, state: PresenceState, chatId?: string): Promise<void>;
  picture(instanceId: string, chatId: string): Promise<Picture | null>;
  downloadMedia(instanceId: string, networkId: string): Promise<Picture | null>;
  /** A feature area's operation (contracts/session-ops.ts) on the instance's provider. */
  op<N extends SessionOpName>(instanceId: string, name: N, input: SessionOpInput<N>): Promise<SessionOpOutput<N>>;
}

/**
 * A session pod's sessions: the connections it holds (ConnectionOwner, ownership/: leases,
 * reconcile, handover, fencing) and the operations the gateway asks of them (SessionApi).
 */
export class SessionManager extends ConnectionOwner implements SessionApi {
  // --- SessionApi ------------------------------------------------------------------------

  async stop(instanceId: string): Promise<void> {
    await this.platform.redis.srem(this.platform.keys.running, instanceId);
    await this.release(instanceId, { status: "STOPPED" });
  }

  async restart(instanceId: string): Promise<void> {
    const held = this.need(instanceId);
    held.resume?.end(); // a restart asked for is news: its statuses are written
    await held.session.stop();
    await held.session.start();
  }

  async logout(instanceId: string): Promise<void> {
    const held = this.need(instanceId);
    await this.platform.redis.srem(this.platform.keys.running, instanceId);
    await held.session.logout();
    await held.chain;
    await this.platform.instances.setConnection(instanceId, held.epoch, { phone: "", pushName: "" });
    await this.release(instanceId, { status: "STOPPED" });
  }

  async qr(instanceId: string): Promise<string> {
    const value = this.need(instanceId).session.currentQr();
    if (!value)
      throw new ApiError("instance_not_connected", "Nenhum QR disponível: a instância não está em SCAN_QR_CODE.");
    return value;
  }

  async pairingCode(instanceId: string, phone: string, method?: "sms" | "voice"): Promise<string> {
    return this.need(instanceId).session.requestPairingCode(phone, method);
  }

  async passkeyChallenge(instanceId: string): Promise<PasskeyChallenge> {
    return this.need(instanceId).session.passkeyChallenge();
  }

  async submitPasskey(instanceId: string, assertion: PasskeyAssertion): Promise<void> {
    return this.need(instanceId).session.submitPasskey(assertion);
  }

  async passkeyConfirmation(instanceId: string): Promise<{ code: string }> {
    return this.need(instanceId).session.passkeyConfirmation();
  }

  async confirmPasskey(instanceId: string): Promise<void> {
    return this.need(instanceId).session.confirmPasskey();
  }

  async account(instanceId: string): Promise<AccountInfo> {
    return this.asHeld(instanceId, (h) => h.session.account());
  }

  async capping(instanceId: string): Promise<Capping> {
    return this.asHeld(instanceId, (h) => h.session.capping());
  }

  async timelock(instanceId: string): Promise<Timelock> {
    return this.asHeld(instanceId, (h) => h.session.timelock());
  }

  /**
   * Sends, then keeps the message (forwards, reactions and quotes find it by id) and publishes
   * its `message.any` (or reaction/edit/revoke) event. The network's own `sent` ack follows as
   * `message.ack` from the provider.
   */
  async send(
    instanceId: string,
    chatId: string,
    content: OutboundContent,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const held = await this.ready(instanceId);
    const { messages, identity } = this.platform;
    if (options.id) {
      // A message already sent under this id: the same send again answers what it answered
      // (nothing is sent or announced twice); other content under a used id is a conflict.
      const prior = await messages.get(instanceId, options.id);
      if (prior) {
        if (prior.fromMe && (options.derivedId || storedHash(prior) === contentHash(content))) {
          return { id: prior.id, chatId: prior.chatId, timestamp: prior.timestamp };
        }
        throw invalid("id", "este id já foi usado por outra mensagem");
      }
    }
    const raw = await this.onNetwork(instanceId, held, () =>
      this.toNetwork(instanceId, held, chatId, content, options),
    );
    // Spec 1 rule 3: a lid whose number is known is shown as the number (the lid in chatLid).
    const sentTo = raw.chatId || chatId;
    const shown = (await identity.rewrite(instanceId, sentTo)) ?? sentTo;
    const result: SendResult = { id: raw.id, chatId: shown, timestamp: raw.timestamp };
    await recordSent(this.platform, this.opts.log, {
      instanceId,
      sentTo,
      content,
      options,
      result,
      reportsSentAck: held.session.reportsSentAck === true,
      chatName: (chat) => this.chatName(instanceId, held, chat),
    });
    return result;
  }

  /**
   * The provider's send, as the pod's metrics (sends in flight, latency to the network's answer)
   * and traces (a `provider send` span under the operation's) see it.
   */
  private toNetwork(instanceId: string, held: Held, chatId: string, content: OutboundContent, options: SendOptions) {
    const send = () => held.session.send(chatId, content, options);
    const observer = this.opts.observer;
    const observed = observer ? () => observer.send(held.provider, send) : send;
    if (!tracingEnabled()) return observed();
    const attributes = { "gw.provider": held.provider, "gw.instance_id": instanceId };
    return inSpan("provider send", { kind: SpanKind.CLIENT, attributes }, observed);
  }

  async checkExists(instanceId: string, phone: string): Promise<ExistsResult> {
    const held = await this.ready(instanceId);
    const found = await this.asHeld(instanceId, () => held.session.checkExists(phone));
    // What the number check reveals about privacy ids is kept (spec 1 rule 3).
    if (found.exists && found.lid && found.chatId) {
      await this.platform.identity.learn(instanceId, found.lid, found.chatId.split("@")[0]!).catch(() => {});
    }
    return found;
  }

  /** A chat's name as learnt from its messages, else as the provider tells it (a group's subject). */
  private async chatName(instanceId: string, held: Held, chatId: string): Promise<string | null> {
    const known = await this.platform.identity.nameOf(instanceId, chatId);
    if (known || !held.session.chatTitle) return known;
    const name = await held.session.chatTitle(chatId).catch(() => null);
    if (name) await this.platform.identity.learnName(instanceId, chatId, name);
    return name;
  }

  async markRead(instanceId: string, chatId: string, messageIds: string[]): Promise<void> {
    return this.asHeld(instanceId, (h) => h.session.markRead(chatId, messageIds));
  }

  async presence(instanceId: string, state: PresenceState, chatId?: string): Promise<void> {
    return this.asHeld(instanceId, (h) => h.session.presence(state, chatId));
  }

  async picture(instanceId: string, chatId: string): Promise<Picture | null> {
    return this.asHeld(instanceId, (h) => h.session.picture(chatId));
  }

  async downloadMedia(instanceId: string, networkId: string): Promise<Picture | null> {
    return this.asHeld(instanceId, async ({ session }) =>
      session.downloadMedia ? session.downloadMedia(networkId) : null,
    );
  }

  async op<N extends SessionOpName>(
    instanceId: string,
    name: N,
    input: SessionOpInput<N>,
  ): Promise<SessionOpOutput<N>> {
    return this.asHeld(instanceId, ({ session }) => {
      if (!isSessionOp(name)) throw new ApiError("not_found", `Operação desconhecida: ${String(name)}.`);
      const handler = session.ops?.[name] as ((input: unknown) => Promise<SessionOpOutput<N>>) | undefined;
      if (!handler) throw new ApiError("not_supported", `O provedor ${session.provider} não implementa ${name}.`);
      // The gateway validated the request; this guards the internal hop (another version, a tool).
      const parsed = SESSION_OPS[name].input.safeParse(input);
      if (!parsed.success) {
        throw invalidFields(validationDetails(parsed.error));
      }
      return handler(parsed.data);
    });
  }

  protected rejectCall(instanceId: string, callId: string, from: string): Promise<unknown> {
    return this.op(instanceId, "calls.reject", { callId, from, by: "auto" });
  }

  protected reply(instanceId: string, chatId: string, content: OutboundContent): Promise<unknown> {
    return this.send(instanceId, chatId, content);
  }
}

export type { SessionManagerOptions };
