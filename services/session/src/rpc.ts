import {
  outboundContentSchema,
  passkeyAssertionInput,
  presenceStateSchema,
  type SessionOpInput,
  type SessionOpName,
  sendOptionsSchema,
} from "@gw/contracts";
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
  send: procedure
    .input(byId.extend({ chatId: z.string(), content: outboundContentSchema, options: sendOptionsSchema.optional() }))
    .mutation(({ ctx, input }) => ctx.api.send(input.instanceId, input.chatId, input.content, input.options)),
  checkExists: procedure
    .input(byId.extend({ phone: z.string() }))
    .query(({ ctx, input }) => ctx.api.checkExists(input.instanceId, input.phone)),
  markRead: procedure
    .input(byId.extend({ chatId: z.string(), messageIds: z.array(z.string()) }))
    .mutation(({ ctx, input }) => ctx.api.markRead(input.instanceId, input.chatId, input.messageIds)),
  picture: procedure
    .input(byId.extend({ chatId: z.string() }))
    .query(({ ctx, input }) => ctx.api.picture(input.instanceId, input.chatId)),
  downloadMedia: procedure
    .input(byId.extend({ networkId: z.string() }))
    .query(({ ctx, input }) => ctx.api.downloadMedia(input.instanceId, input.networkId)),
  op: procedure
    .input(byId.extend({ name: z.string(), input: z.unknown() }))
    .mutation(({ ctx, input }) =>
      ctx.api.op(input.instanceId, input.name as SessionOpName, input.input as SessionOpInput<SessionOpName>),
    ),
  presence: procedure
    .input(byId.extend({ state: presenceStateSchema, chatId: z.string().optional() }))
    .mutation(({ ctx, input }) => ctx.api.presence(input.instanceId, input.state, input.chatId)),
});
export type SessionRouter = typeof sessionRouter;
