import { ApiError, ERROR_STATUS, type ErrorCode } from "@gw/contracts";
import { Pool } from "undici";
import type { SessionApi } from "./manager.ts";

export const INTERNAL_SECRET_HEADER = "x-internal-secret";

/**
 * The client of a session pod, shaped as {@link SessionApi}: `POST /rpc/<op>` with the
 * procedure's input as JSON, over a keep-alive undici pool (no WHATWG fetch, streams or abort
 * signals per call: the gateway → pod hop is on every send).
 */
export function createSessionClient(url: string, secret: string): SessionApi {
  const pool = new Pool(url.replace(/\/$/, ""), { connections: 64, keepAliveTimeout: 30_000 });
  const headers = { "content-type": "application/json", [INTERNAL_SECRET_HEADER]: secret };
  const call = async <T>(op: string, input: unknown): Promise<T> => {
    let status: number;
    let text: string;
    try {
      const res = await pool.request({
        path: `/rpc/${op}`,
        method: "POST",
        headers,
        body: JSON.stringify(input),
        headersTimeout: CALL_TIMEOUT_MS,
        bodyTimeout: CALL_TIMEOUT_MS,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch {
      throw new ApiError("network_unavailable", "Servidor da sessão indisponível; tente de novo.", undefined, 1);
    }
    const body = (text ? JSON.parse(text) : {}) as { result?: T; api?: RemoteError };
    if (status === 200) return body.result as T;
    const api = body.api;
    if (api && api.code in ERROR_STATUS) {
      throw new ApiError(api.code as ErrorCode, api.message, api.details, api.retryAfter);
    }
    throw new ApiError("network_unavailable", "Servidor da sessão indisponível; tente de novo.", undefined, 1);
  };
  return {
    stop: (instanceId) => call("stop", { instanceId }),
    restart: (instanceId) => call("restart", { instanceId }),
    logout: (instanceId) => call("logout", { instanceId }),
    qr: (instanceId) => call("qr", { instanceId }),
    pairingCode: (instanceId, phone, method) => call("pairingCode", { instanceId, phone, method }),
    passkeyChallenge: (instanceId) => call("passkeyChallenge", { instanceId }),
    submitPasskey: (instanceId, assertion) => call("submitPasskey", { instanceId, assertion }),
    passkeyConfirmation: (instanceId) => call("passkeyConfirmation", { instanceId }),
    confirmPasskey: (instanceId) => call("confirmPasskey", { instanceId }),
    account: (instanceId) => call("account", { instanceId }),
    capping: (instanceId) => call("capping", { instanceId }),
    timelock: (instanceId) => call("timelock", { instanceId }),
    send: (instanceId, chatId, content, options) => call("send", { instanceId, chatId, content, options }),
    checkExists: (instanceId, phone) => call("checkExists", { instanceId, phone }),
    markRead: (instanceId, chatId, messageIds) => call("markRead", { instanceId, chatId, messageIds }),
    presence: (instanceId, state, chatId) => call("presence", { instanceId, state, chatId }),
    picture: (instanceId, chatId) => call("picture", { instanceId, chatId }),
    downloadMedia: (instanceId, networkId) => call("downloadMedia", { instanceId, networkId }),
  };
}

/** Longer than any operation a pod runs for a caller (a send waits up to 10 s for the network). */
const CALL_TIMEOUT_MS = 60_000;

type RemoteError = { code: string; message: string; details?: Record<string, string>; retryAfter?: number };
