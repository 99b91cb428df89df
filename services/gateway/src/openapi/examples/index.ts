import type { OperationExample } from "./define.ts";
import { labelsExamples } from "./labels.ts";
import {
  ACCOUNT_ID,
  APP_ID,
  CHANNEL_ID,
  DELIVERY_ID,
  GROUP_ID,
  HIDDEN_LID,
  INSTANCE_ID,
  MARIA,
  QUEUE_ID,
  SENT_MESSAGE_ID,
  WEBHOOK_ID,
} from "./samples.ts";

/** Path parameters by name, the same on every route (an example may give its own). */
export const PATH_EXAMPLES: Record<string, string> = {
  instanceId: INSTANCE_ID,
  accountId: ACCOUNT_ID,
  webhookId: WEBHOOK_ID,
  deliveryId: DELIVERY_ID,
  queueId: QUEUE_ID,
  appId: APP_ID,
  chatId: MARIA.id,
  contactId: MARIA.id,
  messageId: SENT_MESSAGE_ID,
  groupId: GROUP_ID,
  channelId: CHANNEL_ID,
  labelId: "3",
  lid: HIDDEN_LID,
  phone: MARIA.phone,
};

/** Every operation's examples, by procedure path (`instances.labelsCreate`, `admin.accounts.create`). */
export const EXAMPLES: Record<string, OperationExample> = {
  ...labelsExamples,
};
