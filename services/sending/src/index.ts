import type { Config, Platform } from "@gw/platform";
import type { SessionDirectory } from "@gw/session";
import type { Client } from "@temporalio/client";
import { IdempotencyStore } from "./idempotency.ts";
import { SendQueue } from "./queue.ts";
import { Sender } from "./sender.ts";
import { SendService } from "./service.ts";
import { TrialLimiter } from "./trial.ts";

export * from "./chat-resolution.ts";
export * from "./compose/index.ts";
export * from "./helpdesk-signal.ts";
export * from "./idempotency.ts";
export * from "./media/index.ts";
export * from "./queue.ts";
export * from "./queue-item.ts";
export * from "./queue-store.ts";
export * from "./sender.ts";
export * from "./service.ts";
export * from "./temporal.ts";
export * from "./trial.ts";

/** Everything the send routes and the queue's activities share. */
export function createSending(
  platform: Platform,
  config: Config,
  sessions: SessionDirectory,
  temporal: () => Promise<Client>,
) {
  const sender = new Sender(platform, config, sessions);
  const queue = new SendQueue(platform, temporal, config.TEMPORAL_TASK_QUEUE);
  const idempotency = new IdempotencyStore(platform.redis, platform.keys);
  const trial = new TrialLimiter(platform.redis, platform.keys, config.TRIAL_DAILY_MESSAGES);
  const service = new SendService({ sender, queue, idempotency, trial, messages: platform.messages, sessions });
  return { sender, queue, idempotency, trial, service };
}
export type Sending = ReturnType<typeof createSending>;
