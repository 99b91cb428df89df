import { ApiError, ERROR_STATUS, type ErrorCode } from "@gw/contracts";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { SessionApi } from "./manager.ts";
import type { SessionRouter } from "./rpc.ts";

export const INTERNAL_SECRET_HEADER = "x-internal-secret";

/** Turns a remote failure back into the public error; an unreachable pod is a 503 to retry. */
function rethrow(err: unknown): never {
  if (err instanceof TRPCClientError) {
    const api = (err.data as { api?: { code: string; message: string; details?: Record<string, string> } } | undefined)
      ?.api;
    if (api && api.code in ERROR_STATUS) throw new ApiError(api.code as ErrorCode, api.message, api.details);
  }
  throw new ApiError("network_unavailable", "Servidor da sessão indisponível; tente de novo.", undefined, 1);
}

/** The typed client of a session pod, shaped as {@link SessionApi}. */
export function createSessionClient(url: string, secret: string): SessionApi {
  const c = createTRPCClient<SessionRouter>({
    links: [httpLink({ url: `${url.replace(/\/$/, "")}/trpc`, headers: { [INTERNAL_SECRET_HEADER]: secret } })],
  });
  const call = <T>(p: Promise<T>): Promise<T> => p.catch(rethrow);
  return {
    stop: (instanceId) => call(c.stop.mutate({ instanceId })),
    restart: (instanceId) => call(c.restart.mutate({ instanceId })),
    logout: (instanceId) => call(c.logout.mutate({ instanceId })),
    qr: (instanceId) => call(c.qr.query({ instanceId })),
    pairingCode: (instanceId, phone, method) => call(c.pairingCode.mutate({ instanceId, phone, method })),
    passkeyChallenge: (instanceId) => call(c.passkeyChallenge.query({ instanceId })),
    submitPasskey: (instanceId, assertion) => call(c.submitPasskey.mutate({ instanceId, assertion })),
    passkeyConfirmation: (instanceId) => call(c.passkeyConfirmation.query({ instanceId })),
    confirmPasskey: (instanceId) => call(c.confirmPasskey.mutate({ instanceId })),
    account: (instanceId) => call(c.account.query({ instanceId })),
    capping: (instanceId) => call(c.capping.query({ instanceId })),
    timelock: (instanceId) => call(c.timelock.query({ instanceId })),
    send: (instanceId, chatId, content, options) => call(c.send.mutate({ instanceId, chatId, content, options })),
    checkExists: (instanceId, phone) => call(c.checkExists.query({ instanceId, phone })),
    markRead: (instanceId, chatId, messageIds) => call(c.markRead.mutate({ instanceId, chatId, messageIds })),
    presence: (instanceId, state, chatId) => call(c.presence.mutate({ instanceId, state, chatId })),
    picture: (instanceId, chatId) => call(c.picture.query({ instanceId, chatId })),
    downloadMedia: (instanceId, networkId) => call(c.downloadMedia.query({ instanceId, networkId })),
  };
}
