import type { Instance, OutboundContent } from "@gw/contracts";
import type { Logger, Platform } from "@gw/platform";

/** How long a call's caller is remembered for `POST /calls/{callId}/reject` without `from`. */
const CALL_MEMORY_S = 600;

/**
 * An incoming call (`call.received`): its caller remembered a while, and the `calls` app applied —
 * rejected at once, optionally answered with a text (docs/apps.md).
 */
export async function onIncomingCall(
  platform: Platform,
  log: Logger,
  instance: Instance,
  payload: Record<string, unknown>,
  act: {
    reject(callId: string, from: string): Promise<unknown>;
    reply(chatId: string, content: OutboundContent): Promise<unknown>;
  },
): Promise<void> {
  const id = typeof payload.id === "string" ? payload.id : null;
  const from = (payload.from as { id?: string } | null)?.id;
  if (!id || !from) return;
  await platform.redis.set(platform.keys.call(instance.id, id), from, "EX", CALL_MEMORY_S);
  const app = await platform.apps.enabled(instance.id, "calls");
  const config = app?.config as { reject?: boolean; message?: string; groups?: boolean } | undefined;
  if (!config?.reject || (payload.isGroup === true && config.groups === false)) return;
  try {
    await act.reject(id, from);
    if (config.message) await act.reply(from, { type: "text", text: config.message });
  } catch (err) {
    log.warn({ err, instanceId: instance.id, callId: id }, "rejecting a call automatically failed");
  }
}
