// Calls on the simulated network (docs/simnet.md "Calls"): a phone calls an account, the account's
// devices hear `call.received`, a device rejects it (`calls.reject`), the phone answers or the caller
// hangs up through the control API. Only the signalling: there is no audio.
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { nowSeconds } from "../ids.ts";
import type { Account } from "../state/model.ts";
import type { SimnetState } from "../state/state.ts";
import { openOp, parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";

interface Call {
  id: string;
  caller: string;
  callee: string;
  groupId: string | null;
  isVideo: boolean;
  state: "ringing" | "accepted" | "rejected" | "cancelled" | "missed";
  rejectedBy: "device" | null;
  at: number;
}

const calls = (state: SimnetState) => state.area("calls", () => new Map<string, Call>());

function payload(state: SimnetState, call: Call, viewer: Account) {
  const caller = state.accounts.get(call.caller);
  const p = caller ? state.peer(caller, viewer.phone) : null;
  return {
    id: call.id,
    chatId: call.groupId ?? p?.id ?? `${call.caller}@c.us`,
    from: p ? { id: p.id, phone: p.phone ?? "", lid: p.lid, pushName: p.pushName } : null,
    isVideo: call.isVideo,
    isGroup: call.groupId !== null,
    timestamp: nowSeconds(),
  };
}

function requireCall(state: SimnetState, id: string): Call {
  const call = calls(state).get(id);
  if (!call) throw new SimnetError("not_found", `no call ${id}`);
  return call;
}

function end(state: SimnetState, call: Call, next: Call["state"], kind: string, extra: Record<string, unknown>) {
  if (call.state !== "ringing") throw new SimnetError("bad_request", `the call is ${call.state}`);
  call.state = next;
  const callee = state.accounts.get(call.callee);
  if (callee) state.deliverEvent(callee, kind, { ...payload(state, call, callee), ...extra });
}

const ops = {
  "calls.reject": openOp(z.object({ callId: z.string().min(1) }), ({ state, acc }, a) => {
    const call = requireCall(state, a.callId);
    if (call.callee !== acc.phone) throw new SimnetError("not_found", `no call ${a.callId} for ${acc.phone}`);
    if (call.state !== "ringing") throw new SimnetError("bad_request", `the call is ${call.state}`);
    // The device that rejected knows it did (its provider announces it): only the caller is told.
    call.state = "rejected";
    call.rejectedBy = "device";
    return { ok: true, call: payload(state, call, acc) };
  }),
};

function control(app: FastifyInstance, state: SimnetState): void {
  // A phone calls an account (its devices hear call.received).
  app.post("/simnet/phones/:phone/call", async (req, reply) => {
    const { phone } = parseBody(z.object({ phone: z.string() }), req.params);
    const caller = state.requireAccount(phone);
    const b = parseBody(
      z.object({ to: z.string().min(1), video: z.boolean().default(false), groupId: z.string().optional() }),
      req.body,
    );
    const callee = state.requireAccount(b.to);
    const call: Call = {
      id: randomBytes(16).toString("hex").toUpperCase(),
      caller: caller.phone,
      callee: callee.phone,
      groupId: b.groupId ?? null,
      isVideo: b.video,
      state: "ringing",
      rejectedBy: null,
      at: Date.now(),
    };
    calls(state).set(call.id, call);
    state.deliverEvent(callee, "call.received", payload(state, call, callee));
    return reply.code(201).send(call);
  });
  // The callee answers on the phone: its other devices hear call.accepted.
  app.post("/simnet/calls/:callId/accept", async (req) => {
    const call = requireCall(state, parseBody(z.object({ callId: z.string() }), req.params).callId);
    end(state, call, "accepted", "call.accepted", {});
    return call;
  });
  // The callee rejects it on the phone: its other devices hear call.rejected by the phone.
  app.post("/simnet/calls/:callId/reject", async (req) => {
    const call = requireCall(state, parseBody(z.object({ callId: z.string() }), req.params).callId);
    end(state, call, "rejected", "call.rejected", { by: "phone", reason: "rejected" });
    return call;
  });
  // The caller hangs up before it is answered.
  app.post("/simnet/calls/:callId/cancel", async (req) => {
    const call = requireCall(state, parseBody(z.object({ callId: z.string() }), req.params).callId);
    end(state, call, "cancelled", "call.rejected", { by: "caller", reason: "cancelled" });
    return call;
  });
  // Nobody answers before the caller's phone gives up.
  app.post("/simnet/calls/:callId/miss", async (req) => {
    const call = requireCall(state, parseBody(z.object({ callId: z.string() }), req.params).callId);
    end(state, call, "missed", "call.rejected", { by: "caller", reason: "missed" });
    return call;
  });
  app.get("/simnet/calls/:callId", async (req) =>
    requireCall(state, parseBody(z.object({ callId: z.string() }), req.params).callId),
  );
}

export const callsArea: SimnetArea = { name: "calls", ops, control };
