import { type ConnectionStatus, type Instance, type StatusCause, statusReasonOf } from "@gw/contracts";
import type { Platform } from "@gw/platform";
import type { Held } from "../held.ts";

/**
 * The connection statuses a session pod writes as an instance's owner, and their `session.status`
 * events: the provider's statuses under the lease (fenced by its epoch), an instance whose
 * provider is not deployed here (FAILED), and one left with a live status and nobody to own it
 * after its lease was lost (STOPPED, unfenced: nobody holds it).
 */

/** Statuses that say a connection is on: only a holder of the lease may leave them standing. */
const LIVE_STATUSES: ReadonlySet<ConnectionStatus> = new Set(["STARTING", "SCAN_QR_CODE", "WORKING"]);

export function publishStatus(
  platform: Platform,
  instance: Instance,
  status: ConnectionStatus,
  previous: ConnectionStatus | null,
  cause: StatusCause | null,
) {
  return platform.events.sessionStatus(instance, status, previous, cause);
}

/** The status and why (the instance's `statusReason`: none while WORKING), and its `session.status`. */
export async function writeStatus(
  platform: Platform,
  instanceId: string,
  held: Held,
  status: ConnectionStatus,
  cause: StatusCause | null,
) {
  const { previous, previousReason, instance } = await platform.instances.setConnection(instanceId, held.epoch, {
    connectionStatus: status,
    statusReason: status === "WORKING" ? null : statusReasonOf(cause),
  });
  held.status = status;
  // A new reason is news even without a change of status (a reconnect that now fails
  // otherwise; a stopped instance's logout that left the device linked); a new retry time alone
  // is only written.
  if (previous !== status || (cause && cause.reason !== previousReason)) {
    await publishStatus(platform, instance, status, previous, cause);
  }
}

/**
 * An instance whose provider this deployment does not run: FAILED with why, and out of the
 * running set (no pod could start it). The caller still holds the lease (`epoch`) and releases it.
 */
export async function failUnavailableProvider(
  platform: Platform,
  instanceId: string,
  instance: Instance,
  epoch: number,
): Promise<void> {
  const cause: StatusCause = {
    reason: "provider_unavailable",
    detail: `provider ${instance.provider} is not available on this deployment`,
  };
  await platform.instances
    .setConnection(instanceId, epoch, { connectionStatus: "FAILED", statusReason: statusReasonOf(cause) })
    .catch(() => {});
  await publishStatus(platform, instance, "FAILED", instance.connectionStatus, cause);
  await platform.redis.srem(platform.keys.running, instanceId);
}

/**
 * After a lease was lost: an instance stopped meanwhile, that no pod owns and that still shows a
 * live status, is written STOPPED (`lease_lost`); one that should run is its next owner's.
 */
export async function settleAbandoned(platform: Platform, instanceId: string): Promise<void> {
  const { redis, keys, leases, instances } = platform;
  if (await redis.sismember(keys.running, instanceId)) return; // someone will own it
  if (await leases.owner(instanceId)) return;
  const instance = await instances.get(instanceId);
  if (!instance || !LIVE_STATUSES.has(instance.connectionStatus)) return;
  const cause = { reason: "lease_lost" } as const;
  const { previous, instance: now } = await instances.setConnection(instanceId, null, {
    connectionStatus: "STOPPED",
    statusReason: statusReasonOf(cause),
  });
  if (previous !== "STOPPED") await publishStatus(platform, now, "STOPPED", previous, cause);
}
