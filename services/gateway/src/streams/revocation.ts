import type { Platform } from "@gw/platform";
import type { FastifyBaseLogger } from "fastify";
import { tokenFingerprint } from "./auth.ts";
import type { StreamHub } from "./hub.ts";

/** How soon an open stream ends after its token was rotated (rotation announces nothing). */
const CHECK_MS = 30_000;

/**
 * A stream is authorized when it opens; the REST routes read the token on every request, so an
 * open stream must not outlive its credential for long: every {@link CHECK_MS}, and at once when
 * an instance changes (its invalidation: a deletion among them), each instance with open streams
 * on this gateway has its token's fingerprint read again (one HGET per instance, not per client),
 * and the streams opened under another fingerprint, or of a deleted instance, end (`revoked`).
 */
export class StreamRevocation {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly platform: Platform,
    private readonly hub: StreamHub,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.check(null), CHECK_MS).unref();
    platform.invalidations.on("instance", (id) => void this.check(id));
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Checks one instance's streams, or (null) every instance's. */
  async check(instanceId: string | null): Promise<void> {
    const ids = instanceId === null ? this.hub.owners() : [instanceId];
    await Promise.all(
      ids.map(async (id) => {
        if (this.hub.ownedBy(id).length === 0) return;
        try {
          const current = await tokenFingerprint(this.platform, id);
          for (const sub of this.hub.ownedBy(id)) {
            if (sub.request.owner?.fingerprint !== current) this.hub.revoke(sub);
          }
        } catch (err) {
          this.log.warn({ err, instanceId: id }, "event streams: token not checked; next round");
        }
      }),
    );
  }
}
