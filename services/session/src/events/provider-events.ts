import type { ConnectionStatus, OutboundContent, StatusCause } from "@gw/contracts";
import { isUnavailable, type Logger, type Platform } from "@gw/platform";
import type { ProviderEvent } from "../providers/contract.ts";
import { onIncomingCall } from "./calls.ts";
import { recordAck, recordInbound } from "./record.ts";

/** How long a provider event is retried while Redis is unreachable before it is given up. */
export const EVENT_RETRY_MS = 120_000;

/** What applying an event needs of the connection it came from (the session manager's). */
export interface EventSource {
  instanceId: string;
  /** The lease epoch the connection holds: connection writes are fenced by it. */
  epoch: number;
  /** Writes the connection status and publishes its change (`session.status`). */
  writeStatus(status: ConnectionStatus, cause: StatusCause | null): Promise<void>;
  /** Lets go of the instance, keeping the status just written (logged out). */
  releaseKeepingStatus(): Promise<void>;
  /** The `calls` app's answers to a call: reject it, reply in its chat. */
  rejectCall(callId: string, from: string): Promise<unknown>;
  reply(chatId: string, content: OutboundContent): Promise<unknown>;
}

/**
 * Applies a provider event, again and again while Redis is unreachable (up to EVENT_RETRY_MS):
 * a received message the network handed over is not handed over again, so failing to record
 * it would lose it.
 */
export async function applyProviderEvent(
  platform: Platform,
  log: Logger,
  source: EventSource,
  event: ProviderEvent,
): Promise<void> {
  const deadline = Date.now() + EVENT_RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await applyOnce(platform, log, source, event);
    } catch (err) {
      if (!isUnavailable(err) || Date.now() + wait > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** What each kind of provider event leaves behind: statuses, the account, messages, acks, events. */
async function applyOnce(platform: Platform, log: Logger, source: EventSource, event: ProviderEvent): Promise<void> {
  const { instanceId, epoch } = source;
  const store = platform.instances;
  switch (event.type) {
    case "status":
      if (event.status === "FAILED" || (event.status === "STOPPED" && event.cause)) {
        // The provider gave up: the instance no longer runs until started again. Out of the
        // running set before the status says so, so whoever reads the final status never
        // sees the instance still running.
        await platform.redis.srem(platform.keys.running, instanceId);
      }
      await source.writeStatus(event.status, event.cause ?? null);
      return;
    case "account":
      await store.setConnection(instanceId, epoch, { phone: event.account.phone, pushName: event.account.pushName });
      return;
    case "qr":
      return;
    case "message": {
      const instance = await platform.instanceCache.get(instanceId);
      if (instance) await recordInbound(platform, log, instance, event.message);
      return;
    }
    case "ack": {
      const instance = await platform.instanceCache.get(instanceId);
      if (instance) await recordAck(platform, log, instance, event);
      return;
    }
    case "event": {
      const instance = await platform.instanceCache.get(instanceId);
      if (!instance) return;
      // A group changed: its stored metadata is no longer the network's (GET /groups asks again).
      if (event.kind.startsWith("group.") && typeof event.payload.chatId === "string") {
        await platform.groups.forget(instanceId, event.payload.chatId);
      }
      // GET /presence answers from what was heard (docs/profile-presence.md).
      if (event.kind === "presence.update") await platform.presence.heard(instanceId, event.payload);
      await platform.events.publish(instance, event.kind, event.payload);
      if (event.kind === "call.received") {
        // After the event: the `calls` app's rejection (its own event) comes after the call's.
        void onIncomingCall(platform, log, instance, event.payload, {
          reject: (callId, from) => source.rejectCall(callId, from),
          reply: (chatId, content) => source.reply(chatId, content),
        });
      }
      return;
    }
    case "logged-out":
      await platform.redis.srem(platform.keys.running, instanceId);
      await store.setConnection(instanceId, epoch, { phone: "", pushName: "" });
      await source.writeStatus("FAILED", { reason: "logged_out", detail: event.reason });
      await source.releaseKeepingStatus();
      return;
  }
}
