import { ApiError } from "@gw/contracts";
import type { SessionApi } from "@gw/session";
import type { Context } from "./context.ts";

/** `422 instance_not_connected` unless the connection is open (spec 3.1: WORKING). */
export function requireWorking(instance: { connectionStatus: string }): void {
  if (instance.connectionStatus !== "WORKING") {
    throw new ApiError("instance_not_connected", undefined, {
      connectionStatus: `esperado WORKING, atual ${instance.connectionStatus}`,
    });
  }
}

/** Routes that talk to the network need the connection open; the instance's owner answers. */
export async function connectedOwner(
  ctx: Context & { instance: { id: string; connectionStatus: string } },
): Promise<SessionApi> {
  requireWorking(ctx.instance);
  return ctx.sessions.owner(ctx.instance.id);
}
