import { ApiError, invalid } from "@gw/contracts";
import type { SimAreaModule } from "../area.ts";
import { shownContact } from "./shown.ts";

/** Calls on simnet (docs/calls.md): rejecting one; simnet's call events carry the caller as a contact. */
export const simCalls: SimAreaModule = (area) => {
  const rewriteFrom = async (payload: Record<string, unknown>) => {
    const from = payload.from as { id: string; phone: string } | null;
    if (!from) return payload;
    const shown = await shownContact(area.ctx, from);
    const chatId =
      typeof payload.chatId === "string" ? await area.ctx.identity.rewrite(payload.chatId) : payload.chatId;
    return { ...payload, chatId, from: shown };
  };
  for (const kind of ["call.received", "call.accepted", "call.rejected"]) area.onEvent(kind, rewriteFrom);

  return {
    "calls.reject": async ({ callId, by }) => {
      const r = (await area.request(
        "calls.reject",
        { callId },
        {
          not_found: () => new ApiError("not_found", "Chamada não encontrada."),
          bad_request: () => invalid("callId", "a chamada já terminou"),
        },
      )) as { call: Record<string, unknown> };
      area.ctx.emit({
        type: "event",
        kind: "call.rejected",
        payload: { ...(await rewriteFrom(r.call)), by, reason: "rejected" },
      });
      return { success: true as const };
    },
  };
};
