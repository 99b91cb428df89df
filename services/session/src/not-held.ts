import { ApiError } from "@gw/contracts";

/**
 * A pod was asked about an instance it does not hold (it let go of it, or never had it). Raised
 * before the pod does anything, so the caller may ask the instance's real owner instead: the
 * gateway keeps owners in memory and retries once on a fresh lookup (directory.ts). Its public
 * face, when the retry cannot help, is `503 network_unavailable`.
 */
export class NotHeldHere extends ApiError {
  constructor() {
    super("network_unavailable", "A instância mudou de servidor; tente de novo.", undefined, 1);
  }
}
