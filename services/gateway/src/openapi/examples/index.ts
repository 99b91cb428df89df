import { adminAccountsExamples, adminInstancesExamples } from "./admin.ts";
import { appsExamples } from "./apps.ts";
import { businessExamples } from "./business.ts";
import { callsExamples } from "./calls.ts";
import { channelsExamples } from "./channels.ts";
import { chatsExamples } from "./chats.ts";
import { connectionExamples } from "./connection.ts";
import { contactsExamples } from "./contacts.ts";
import type { OperationExample } from "./define.ts";
import { groupsExamples } from "./groups.ts";
import { labelsExamples } from "./labels.ts";
import { lidsExamples } from "./lids.ts";
import { mediaExamples } from "./media.ts";
import { messagesExamples } from "./messages.ts";
import { presenceExamples } from "./presence.ts";
import { profileExamples } from "./profile.ts";
import { queueExamples } from "./queue.ts";
import {
  ACCOUNT_ID,
  APP_ID,
  CHANNEL_ID,
  DELIVERY_ID,
  GROUP_ID,
  INSTANCE_ID,
  MARIA,
  QUEUE_ID,
  SENT_MESSAGE_ID,
  WEBHOOK_ID,
} from "./samples.ts";
import { adminShardsExamples } from "./shards.ts";
import { statusExamples } from "./status.ts";
import { templatesExamples } from "./templates.ts";
import { webhooksExamples } from "./webhooks.ts";

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
  lid: MARIA.lid,
  code: "F3kLq9ZxW2mB7rTy4VnC1a",
  callId: "9F3C2A4E1B7D6C5A8E0F1D2C3B4A5968",
  name: "pedido_enviado",
  phone: MARIA.phone,
};

/** Every operation's examples, by procedure path (`instances.labelsCreate`, `admin.accounts.create`). */
export const EXAMPLES: Record<string, OperationExample> = {
  ...connectionExamples,
  ...webhooksExamples,
  ...messagesExamples,
  ...queueExamples,
  ...chatsExamples,
  ...profileExamples,
  ...presenceExamples,
  ...labelsExamples,
  ...statusExamples,
  ...channelsExamples,
  ...groupsExamples,
  ...contactsExamples,
  ...callsExamples,
  ...lidsExamples,
  ...mediaExamples,
  ...appsExamples,
  ...businessExamples,
  ...templatesExamples,
  ...adminAccountsExamples,
  ...adminInstancesExamples,
  ...adminShardsExamples,
};
