import { ApiError, failure } from "@gw/contracts";
import { type Config, type Platform, ReplicaCache } from "@gw/platform";
import { createSessionClient } from "./client.ts";
import type { SessionApi, SessionManager } from "./manager.ts";
import { NotHeldHere } from "./not-held.ts";

const POD_URL_CACHE_MS = 5_000;
/** A pod that let go of an instance and still holds its lease releases it within moments. */
const NOT_HELD_PAUSE_MS = 50;

/** Every operation of {@link SessionApi}; each takes the instance id first. */
const OPERATIONS = [
  "stop",
  "restart",
  "logout",
  "qr",
  "pairingCode",
  "passkeyChallenge",
  "submitPasskey",
  "passkeyConfirmation",
  "confirmPasskey",
  "account",
  "capping",
  "timelock",
  "send",
  "checkExists",
  "markRead",
  "presence",
  "picture",
  "downloadMedia",
  "op",
] as const satisfies readonly (keyof SessionApi)[];
type Operation = (instanceId: string, ...rest: unknown[]) => Promise<unknown>;
// Every operation is listed: an operation added to SessionApi and not here fails to compile.
const everyOperation: Exclude<keyof SessionApi, (typeof OPERATIONS)[number]> extends never ? true : never = true;
void everyOperation;

/**
 * Finds the session pod that owns an instance (its lease) and gives its operations: the local
 * manager when this process holds the lease, else that pod's internal client.
 *
 * `owner()` — the path of every send — keeps what it found for a lease period (`LEASE_TTL_MS`)
 * instead of reading the lease on every call. A stale answer cannot do harm: a pod asked about
 * an instance it no longer holds refuses before doing anything ({@link NotHeldHere}), and the
 * call is made once more on a fresh lookup; a call that finds its pod gone forgets the owner
 * (the next call looks it up again).
 */
export class SessionDirectory {
  private readonly clients = new Map<string, SessionApi>();
  /** Pod id → its internal URL. */
  private readonly urls = new ReplicaCache<string | null>(POD_URL_CACHE_MS, 1_000);
  /** Instance id → its owner's API, for a lease period (see {@link owner}). */
  private readonly owners: ReplicaCache<SessionApi>;
  /** Each owner's API wrapped once (see {@link routed}). */
  private readonly wrapped = new WeakMap<SessionApi, SessionApi>();

  constructor(
    private readonly platform: Platform,
    private readonly config: Config,
    private readonly local?: SessionManager,
  ) {
    this.owners = new ReplicaCache(config.LEASE_TTL_MS, 100_000);
  }

  /** The owner's API as the lease says right now, or null when no pod holds the instance. */
  async ownerIfAny(instanceId: string): Promise<SessionApi | null> {
    const owner = await this.platform.leases.owner(instanceId);
    if (!owner) return null;
    if (this.local && owner.podId === this.local.podId) return this.local;
    const url = await this.podUrl(owner.podId);
    if (!url) return null;
    let client = this.clients.get(url);
    if (!client) {
      client = createSessionClient(url, this.config.INTERNAL_SECRET);
      this.clients.set(url, client);
    }
    return client;
  }

  /**
   * A pod's URL is fixed for its life (a restarted pod has a new id): cached a few seconds, which
   * saves a Redis round trip on every call to a remote owner.
   */
  private podUrl(podId: string): Promise<string | null> {
    return this.urls.get(podId, () => this.platform.leases.podUrl(podId));
  }

  /**
   * The owner's API (known from a recent call, else looked up), waiting briefly for one (a pod
   * may be taking the instance over), then 503.
   */
  async owner(instanceId: string): Promise<SessionApi> {
    return this.routed(await this.known(instanceId));
  }

  /** The owner remembered from a recent lookup, else a fresh one (remembered for a lease period). */
  private known(instanceId: string): Promise<SessionApi> {
    return this.owners.get(instanceId, () => this.lookUp(instanceId));
  }

  private async lookUp(instanceId: string): Promise<SessionApi> {
    const until = Date.now() + this.config.OWNER_WAIT_MS;
    for (;;) {
      const api = await this.ownerIfAny(instanceId);
      if (api) return api;
      if (Date.now() >= until) {
        throw failure("owner_missing", "Nenhum servidor de sessão atende esta instância agora; tente de novo.");
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * `api` with every operation made again on a fresh lookup when its pod does not hold the
   * instance (nothing was done: safe to repeat); a pod that cannot be reached is forgotten.
   */
  private routed(api: SessionApi): SessionApi {
    let routed = this.wrapped.get(api);
    if (routed) return routed;
    const out: Record<string, Operation> = {};
    for (const op of OPERATIONS) out[op] = (instanceId, ...rest) => this.call(api, op, instanceId, rest);
    routed = out as unknown as SessionApi;
    this.wrapped.set(api, routed);
    return routed;
  }

  /**
   * One operation on the owner, asked again while the pod asked does not hold the instance: a
   * pod letting go of it on a handover refuses before its lease is released, so the fresh
   * lookup may name it once more; it is then asked again after a short pause, until
   * OWNER_WAIT_MS has passed (then the refusal's 503). A different owner is always asked.
   */
  private async call(api: SessionApi, op: (typeof OPERATIONS)[number], instanceId: string, rest: unknown[]) {
    const until = Date.now() + this.config.OWNER_WAIT_MS;
    let current = api;
    for (;;) {
      try {
        return await (current as unknown as Record<string, Operation>)[op]!.call(current, instanceId, ...rest);
      } catch (err) {
        if (err instanceof NotHeldHere) {
          this.owners.forget(instanceId);
          const fresh = await this.known(instanceId);
          if (fresh === current) {
            if (Date.now() >= until) throw err;
            await new Promise((r) => setTimeout(r, NOT_HELD_PAUSE_MS));
            this.owners.forget(instanceId);
            current = await this.known(instanceId);
          } else current = fresh;
          continue;
        }
        if (err instanceof ApiError && (err.code === "network_unavailable" || err.code === "network_timeout")) {
          this.owners.forget(instanceId);
        }
        throw err;
      }
    }
  }

  /** Asks session pods to reconcile now (after start/stop) instead of at their next tick. */
  async kick(): Promise<void> {
    await this.platform.redis.publish(this.platform.keys.sessionKick, "1");
  }
}
