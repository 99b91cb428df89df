import type { WACallEvent } from "@whiskeysockets/baileys";
import { toChatId, toUserJid } from "../jids.ts";
import { nowSeconds } from "../seconds.ts";
import type { BaileysAreaModule } from "./area.ts";

/** Calls remembered per session (the newest); older ones are only rejectable with `from`. */
const MEMORY = 1_000;

type CallState = "ringing" | "accepted" | "ended";

/**
 * Calls through Baileys (the `call` event, `sock.rejectCall`; docs/calls.md). Baileys reports the
 * network's call nodes as statuses: `offer` (ringing here) is `call.received`; `accept` (answered
 * on another device of the account) `call.accepted`; `reject` (rejected on another device)
 * `call.rejected` by `phone`; `timeout` (nobody answered) `call.rejected` by the caller, `missed`;
 * `terminate` while still ringing (the caller hung up) `call.rejected` by the caller, `cancelled`
 * — after an answer or a rejection it only ends what already ended. A rejection made here is
 * announced by the operation itself (`me` or `auto`), and the network's echo of it is not
 * announced again. Offers replayed from the offline backlog are over: not announced.
 */
export const baileysCalls: BaileysAreaModule = (area) => {
  const calls = new Map<string, { jid: string; state: CallState; offer?: Payload }>();
  const remember = (id: string, jid: string, state: CallState, offer = calls.get(id)?.offer) => {
    calls.delete(id);
    calls.set(id, { jid, state, ...(offer ? { offer } : {}) });
    if (calls.size > MEMORY) calls.delete(calls.keys().next().value!);
  };

  /** The caller as a contact: the number when known (`callerPn`, or learnt for its LID). */
  const caller = async (jid: string, pn?: string) => {
    const lid = jid.endsWith("@lid") ? toChatId(jid) : null;
    if (lid && pn) await area.ctx.identity.learn(lid, toChatId(pn).split("@")[0]!);
    const id = pn ? toChatId(pn) : await area.ctx.identity.rewrite(toChatId(jid));
    return { id, phone: id.endsWith("@c.us") ? id.split("@")[0]! : "", lid, pushName: "" };
  };

  type Payload = Awaited<ReturnType<typeof payload>>;
  const payload = async (c: WACallEvent) => {
    const from = await caller(c.from, c.callerPn ?? (c.from.endsWith("@s.whatsapp.net") ? c.from : undefined));
    return {
      id: c.id,
      chatId: c.isGroup && c.groupJid ? c.groupJid : from.id,
      from,
      isVideo: c.isVideo === true,
      isGroup: c.isGroup === true,
      timestamp: Math.floor(c.date.getTime() / 1000),
    };
  };

  /** A call this session did not see ring (an earlier session's, or one named by `from`). */
  const unknownOffer = async (id: string, jid: string): Promise<Payload> => {
    const from = await caller(jid, jid.endsWith("@s.whatsapp.net") ? jid : undefined);
    return { id, chatId: from.id, from, isVideo: false, isGroup: false, timestamp: nowSeconds() };
  };

  const ended = async (c: WACallEvent, by: "phone" | "caller", reason: "rejected" | "cancelled" | "missed") => {
    const offer = calls.get(c.id)?.offer ?? (await payload(c));
    remember(c.id, c.from, "ended");
    const timestamp = Math.floor(c.date.getTime() / 1000);
    area.ctx.emit({ type: "event", kind: "call.rejected", payload: { ...offer, by, reason, timestamp } });
  };

  const handle = async (events: WACallEvent[]) => {
    for (const c of events) {
      const known = calls.get(c.id);
      if (c.status === "offer") {
        if (c.offline || known) continue;
        const offer = await payload(c);
        remember(c.id, c.from, "ringing", offer);
        area.ctx.emit({ type: "event", kind: "call.received", payload: offer });
      } else if (c.status === "accept" && known?.state !== "ended") {
        remember(c.id, c.from, "accepted");
        area.ctx.emit({ type: "event", kind: "call.accepted", payload: await payload(c) });
      } else if (known?.state === "ended" || known?.state === "accepted") {
        // The end of a call already announced (our rejection's echo, or an answered call hanging up).
      } else if (c.status === "reject") await ended(c, "phone", "rejected");
      else if (c.status === "timeout") await ended(c, "caller", "missed");
      else if (c.status === "terminate") await ended(c, "caller", "cancelled");
    }
  };

  area.onSocket((sock, current) => {
    // Baileys emits each call node on its own; handled one after the other, an answer or an end
    // never overtakes its offer (their payloads wait for the identity store).
    let turn = Promise.resolve();
    sock.ev.on("call", (events) => {
      if (!current()) return;
      turn = turn.then(() => handle(events)).catch((err) => area.ctx.log.warn({ err }, "a call event failed"));
    });
  });

  return {
    "calls.reject": ({ callId, from, by }) =>
      area.call("calls.reject", async (sock) => {
        const known = calls.get(callId);
        const jid = known?.jid ?? toUserJid(from) ?? from;
        remember(callId, jid, "ended");
        await sock.rejectCall(callId, jid);
        const offer = known?.offer ?? (await unknownOffer(callId, jid));
        area.ctx.emit({
          type: "event",
          kind: "call.rejected",
          payload: { ...offer, by, reason: "rejected", timestamp: nowSeconds() },
        });
        return { success: true as const };
      }),
  };
};
