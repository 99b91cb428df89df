import { ApiError } from "@gw/contracts";
import type { SessionApi } from "@gw/session";
import type { Context } from "./context.ts";

/** Routes that talk to the network need the connection open; the instance's owner answers. */
export async function connectedOwner(
  ctx: Context & { instance: { id: string; connectionStatus: string } },
): Promise<SessionApi> {
  if (ctx.instance.connectionStatus !== "WORKING") {
    throw new ApiError("instance_not_connected", undefined, {
      connectionStatus: `esperado WORKING, atual ${ctx.instance.connectionStatus}`,
    });
  }
  return ctx.sessions.owner(ctx.instance.id);
}
