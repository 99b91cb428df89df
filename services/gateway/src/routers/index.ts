import { mergeRouters, router } from "../trpc/init.ts";
import { adminAccountsRouter } from "./admin/accounts.ts";
import { adminInstancesRouter } from "./admin/instances.ts";
import { businessRouter } from "./business.ts";
import { chatBasicsRouter } from "./chat-basics.ts";
import { chatsRouter } from "./chats.ts";
import { instanceRouter } from "./instance.ts";
import { messagesRouter } from "./messages.ts";
import { queueRouter } from "./queue.ts";
import { sessionRouter } from "./session.ts";
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
  ),
  admin: router({ accounts: adminAccountsRouter, instances: adminInstancesRouter }),
});
export type AppRouter = typeof appRouter;
