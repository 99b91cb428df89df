import { passkeyAssertionInput } from "@gw/contracts";
import { formatTrpcError } from "@gw/platform";
import { initTRPC } from "@trpc/server";
import { z } from "zod";
import type { SessionApi } from "./manager.ts";

/**
 * What a session pod serves on its internal port: the operations of {@link SessionApi} on the
 * instances whose lease it holds. Errors keep the public error in `data.api`.
 */
const t = initTRPC.context<{ api: SessionApi }>().create({
  errorFormatter: ({ shape, error }) => formatTrpcError(shape, error),
});

const procedure = t.procedure;

const byId = z.object({ instanceId: z.string() });

export const sessionRouter = t.router({
  stop: procedure.input(byId).mutation(({ ctx, input }) => ctx.api.stop(input.instanceId)),
  restart: procedure.input(byId).mutation(({ ctx, input }) => ctx.api.restart(input.instanceId)),
  logout: procedure.input(byId).mutation(({ ctx, input }) => ctx.api.logout(input.instanceId)),
  qr: procedure.input(byId).query(({ ctx, input }) => ctx.api.qr(input.instanceId)),
  pairingCode: procedure
    .input(byId.extend({ phone: z.string(), method: z.enum(["sms", "voice"]).optional() }))
    .mutation(({ ctx, input }) => ctx.api.pairingCode(input.instanceId, input.phone, input.method)),
  passkeyChallenge: procedure.input(byId).query(({ ctx, input }) => ctx.api.passkeyChallenge(input.instanceId)),
  submitPasskey: procedure
    .input(byId.extend({ assertion: passkeyAssertionInput }))
    .mutation(({ ctx, input }) => ctx.api.submitPasskey(input.instanceId, input.assertion)),
  passkeyConfirmation: procedure.input(byId).query(({ ctx, input }) => ctx.api.passkeyConfirmation(input.instanceId)),
  confirmPasskey: procedure.input(byId).mutation(({ ctx, input }) => ctx.api.confirmPasskey(input.instanceId)),
  account: procedure.input(byId).query(({ ctx, input }) => ctx.api.account(input.instanceId)),
  capping: procedure.input(byId).query(({ ctx, input }) => ctx.api.capping(input.instanceId)),
  timelock: procedure.input(byId).query(({ ctx, input }) => ctx.api.timelock(input.instanceId)),
});
export type SessionRouter = typeof sessionRouter;
