import { mergeRouters, router } from "../trpc/init.ts";
import { adminAccountsRouter } from "./admin/accounts.ts";
import { adminInstancesRouter } from "./admin/instances.ts";
import { adminShardsRouter } from "./admin/shards.ts";
import { appsRouter } from "./apps.ts";
import { businessRouter } from "./business.ts";
import { callsRouter } from "./calls.ts";
import { channelsRouter } from "./channels.ts";
import { chatBasicsRouter } from "./chat-basics.ts";
import { chatsRouter } from "./chats.ts";
import { contactsRouter } from "./contacts.ts";
import { groupsRouter } from "./groups.ts";
import { instanceRouter } from "./instance.ts";
import { labelsRouter } from "./labels.ts";
import { lidsRouter } from "./lids.ts";
import { mediaRouter } from "./media.ts";
import { messagesRouter } from "./messages.ts";
import { presenceRouter } from "./presence.ts";
import { profileRouter } from "./profile.ts";
import { queueRouter } from "./queue.ts";
import { sessionRouter } from "./session.ts";
import { statusRouter } from "./status.ts";
import { templatesRouter } from "./templates.ts";
import { eventsRouter, webhooksRouter } from "./webhooks.ts";

/** Every operation, once: served as REST at /v1 and as tRPC at the internal /trpc. */
export const appRouter = router({
  instances: mergeRouters(
    instanceRouter,
    sessionRouter,
    webhooksRouter,
    eventsRouter,
    chatBasicsRouter,
    messagesRouter,
    queueRouter,
    chatsRouter,
    businessRouter,
    templatesRouter,
    profileRouter,
    presenceRouter,
    labelsRouter,
    appsRouter,
    lidsRouter,
    mediaRouter,
    statusRouter,
    channelsRouter,
    groupsRouter,
    contactsRouter,
    callsRouter,
  ),
  admin: router({ accounts: adminAccountsRouter, instances: adminInstancesRouter, shards: adminShardsRouter }),
});
export type AppRouter = typeof appRouter;
