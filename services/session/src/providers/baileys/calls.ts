import type { WACallEvent } from "@whiskeysockets/baileys";
import type { BaileysAreaModule } from "./areas.ts";
import { toChatId, toUserJid } from "./outbound.ts";

/**
 * Calls through Baileys (the `call` event, `sock.rejectCall`; docs/calls.md): an offer is
 * `call.received`, an answer on another device `call.accepted`, the caller's hang-up or a timeout
 * `call.rejected` (`by: "caller"`); a rejection made here is announced by the operation itself
 * (`by: "me"` or `"auto"`), and the network's echo of it is not announced again.
 */
export const baileysCalls: BaileysAreaModule = (area) => {
  const callers = new Map<string, string>(); // call id → caller jid, for rejecting by id
  const rejectedHere = new Set<string>();

  const payload = async (c: WACallEvent) => {
    const pn = c.callerPn ?? (c.from.endsWith("@s.whatsapp.net") ? c.from : undefined);
    const lid = c.from.endsWith("@lid") ? toChatId(c.from) : null;
    if (lid && pn) await area.ctx.identity.learn(lid, toChatId(pn).split("@")[0]!);
    const id = pn ? toChatId(pn) : await area.ctx.identity.rewrite(toChatId(c.from));
    return {
      id: c.id,
      chatId: c.isGroup && c.groupJid ? c.groupJid : id,
      from: { id, phone: id.endsWith("@c.us") ? id.split("@")[0]! : "", lid, pushName: "" },
      isVideo: c.isVideo === true,
      isGroup: c.isGroup === true,
      timestamp: Math.floor(c.date.getTime() / 1000),
    };
  };

  area.onSocket((sock, current) => {
    sock.ev.on("call", async (events) => {
      if (!current()) return;
      for (const c of events) {
        if (c.offline && c.status === "offer") continue; // a call that rang while we were away is over
        if (c.status === "offer") {
          callers.set(c.id, c.from);
          if (callers.size > 1_000) callers.delete(callers.keys().next().value!);
          area.ctx.emit({ type: "event", kind: "call.received", payload: await payload(c) });
        } else if (c.status === "accept") {
          area.ctx.emit({ type: "event", kind: "call.accepted", payload: await payload(c) });
        } else if ((c.status === "reject" || c.status === "timeout") && !rejectedHere.has(c.id)) {
          const reason = c.status === "timeout" ? "missed" : "cancelled";
          area.ctx.emit({
            type: "event",
            kind: "call.rejected",
            payload: { ...(await payload(c)), by: "caller", reason },
          });
        }
      }
    });
  });

  return {
    "calls.reject": ({ callId, from, by }) =>
      area.call("calls.reject", async (sock) => {
        const jid = callers.get(callId) ?? toUserJid(from) ?? from;
        rejectedHere.add(callId);
        if (rejectedHere.size > 1_000) rejectedHere.delete(rejectedHere.values().next().value!);
        await sock.rejectCall(callId, jid);
        const id = await area.ctx.identity.rewrite(toChatId(jid));
        area.ctx.emit({
          type: "event",
          kind: "call.rejected",
          payload: {
            id: callId,
            chatId: id,
            from: {
              id,
              phone: id.endsWith("@c.us") ? id.split("@")[0]! : "",
              lid: jid.endsWith("@lid") ? toChatId(jid) : null,
              pushName: "",
            },
            by,
            reason: "rejected",
            timestamp: Math.floor(Date.now() / 1000),
          },
        });
        return { success: true as const };
      }),
  };
};
