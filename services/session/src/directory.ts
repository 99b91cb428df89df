import { ApiError } from "@gw/contracts";
import type { Config, Platform } from "@gw/platform";
import { createSessionClient } from "./client.ts";
import type { SessionApi, SessionManager } from "./manager.ts";

const POD_URL_CACHE_MS = 5_000;

/**
 * Finds the session pod that owns an instance (its lease) and gives its operations: the local
 * manager when this process holds the lease, else that pod's internal tRPC client.
 */
export class SessionDirectory {
  private readonly clients = new Map<string, SessionApi>();
  private readonly urls = new Map<string, { url: string; until: number }>();

  constructor(
    private readonly platform: Platform,
    private readonly config: Config,
    private readonly local?: SessionManager,
  ) {}

  /** The owner's API, or null when no pod holds the instance right now. */
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
  private async podUrl(podId: string): Promise<string | null> {
    const hit = this.urls.get(podId);
    if (hit && hit.until > Date.now()) return hit.url;
    const url = await this.platform.leases.podUrl(podId);
    if (url) {
      if (this.urls.size > 1_000) this.urls.clear();
      this.urls.set(podId, { url, until: Date.now() + POD_URL_CACHE_MS });
    }
    return url;
  }

  /** Waits briefly for an owner (a pod may be taking the instance over), then 503. */
  async owner(instanceId: string): Promise<SessionApi> {
    const until = Date.now() + this.config.OWNER_WAIT_MS;
    for (;;) {
      const api = await this.ownerIfAny(instanceId);
      if (api) return api;
      if (Date.now() >= until) {
        throw new ApiError(
          "network_unavailable",
          "Nenhum servidor de sessão atende esta instância agora; tente de novo.",
          undefined,
          2,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Asks session pods to reconcile now (after start/stop) instead of at their next tick. */
  async kick(): Promise<void> {
    await this.platform.redis.publish(this.platform.keys.sessionKick, "1");
  }
}
