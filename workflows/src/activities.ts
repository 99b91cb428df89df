/** The activities the workflows call; implemented by the worker (services/worker). */
export interface RetryInput {
  deliveryId: string;
  /** The delivery's instance (its record's shard); absent for deliveries recorded before session 34. */
  instanceId?: string;
  /** Delay before the next attempt if this one fails; null when it is the last one. */
  nextDelayMs: number | null;
}

export interface RetryResult {
  done: boolean;
  result: "succeeded" | "failed" | "stopped";
}

export interface WebhookActivities {
  retryDelivery(input: RetryInput): Promise<RetryResult>;
}

export type { HelpdeskActivities, HelpdeskRelayInput } from "./helpdesk-activities.ts";
