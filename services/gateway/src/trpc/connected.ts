import { type Instance, requireWorking } from "@gw/contracts";
import type { SessionApi } from "@gw/session";
import type { Context } from "./context.ts";

/**
 * Routes that talk to the network need the connection open (`requireWorking`: 503 while STARTING,
 * 422 otherwise, contracts failures.ts); the instance's owner answers.
 */
export async function connectedOwner(
  ctx: Context & { instance: Pick<Instance, "id" | "connectionStatus" | "statusReason"> },
): Promise<SessionApi> {
  requireWorking(ctx.instance);
  return ctx.sessions.owner(ctx.instance.id);
}
