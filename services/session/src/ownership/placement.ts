import { type Platform, type PodInfo, rankPods } from "@gw/platform";

/**
 * Where each instance should run, as one session pod sees it: rendezvous hashing over the live
 * pods (platform leases.ts `rankPods`), the first in an instance's order that has room — or that
 * already holds it — being its place; and when an instance this pod holds goes to a better-ranked
 * pod (a handover): only once that pod has stayed up for two lease periods, so that a pod that
 * flaps is not handed anything. The owner (index.ts) acts on what this says.
 */
export class Placement {
  /** When each other pod was first seen live: hand over only to pods that stayed up a while. */
  private readonly podsSeen = new Map<string, number>();

  constructor(
    private readonly platform: Platform,
    private readonly podId: string,
  ) {}

  /** Live pods with their load as of their heartbeats (this pod as it is now, `self`). */
  async livePods(self: () => PodInfo): Promise<PodInfo[]> {
    const others = (await this.platform.leases.livePods()).filter((p) => p.podId !== this.podId);
    return [...others, self()];
  }

  /** Notes the pods seen live for the first time at `now`. */
  see(pods: PodInfo[], now: number): void {
    for (const p of pods) if (!this.podsSeen.has(p.podId)) this.podsSeen.set(p.podId, now);
  }

  /** The first pod in rendezvous order that has room (or that already holds it). */
  target(instanceId: string, pods: PodInfo[]): PodInfo | undefined {
    return rankPods(instanceId, pods).find((p) => p.load < p.capacity || p.podId === this.podId);
  }

  /** An instance held here goes to its `target`: a better-ranked pod up for two lease periods. */
  handsOver(target: PodInfo | undefined, now: number): boolean {
    const seen = target ? this.podsSeen.get(target.podId) : undefined;
    return Boolean(target && target.podId !== this.podId && seen && now - seen > 2 * this.platform.leases.ttlMs);
  }
}
