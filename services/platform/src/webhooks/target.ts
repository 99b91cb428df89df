// Below both the webhook store (store.ts) and its delivery log (deliveries.ts): what a delivery is
// addressed to, so neither imports the other for it.

/** A webhook as the dispatcher needs it: with its secret to sign, and whether its failure clock runs. */
export type WebhookTarget = {
  id: string;
  instanceId: string;
  url: string;
  events: string[];
  secret: string;
  failingSince: number | null;
};
