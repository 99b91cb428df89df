import type { Config, Platform } from "@gw/platform";
import type { SessionDirectory } from "@gw/session";
import type { Client } from "@temporalio/client";
import { IdempotencyStore } from "./idempotency.ts";
import { SendQueue } from "./queue.ts";
import { Sender } from "./sender.ts";
import { TrialLimiter } from "./trial.ts";

export * from "./chat-resolution.ts";
export * from "./compose.ts";
export * from "./idempotency.ts";
export * from "./media/index.ts";
export * from "./queue.ts";
export * from "./queue-store.ts";
export * from "./sender.ts";
export * from "./temporal.ts";
export * from "./trial.ts";

/** Everything the send routes and the queue's activities share. */
export function createSending(
  platform: Platform,
  config: Config,
  sessions: SessionDirectory,
  temporal: () => Promise<Client>,
) {
  return {
    sender: new Sender(platform, config, sessions),
    queue: new SendQueue(platform, temporal, config.TEMPORAL_TASK_QUEUE),
    idempotency: new IdempotencyStore(platform.redis, platform.keys),
    trial: new TrialLimiter(platform.redis, platform.keys, config.TRIAL_DAILY_MESSAGES),
  };
}
export type Sending = ReturnType<typeof createSending>;
