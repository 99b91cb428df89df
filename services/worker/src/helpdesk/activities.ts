import type { Logger, Platform } from "@gw/platform";
import type { SendService } from "@gw/sending";
import type { SessionDirectory } from "@gw/session";
import type { HelpdeskActivities, HelpdeskRelayInput } from "@gw/workflows/activities";
import { ApplicationFailure, Context } from "@temporalio/activity";
import type { Histogram } from "prom-client";
import { sendAgentReply } from "./agent.ts";
import { ChatwootClient, ChatwootError } from "./chatwoot.ts";
import { relayEvent } from "./relay.ts";

export interface HelpdeskDeps {
  platform: Platform;
  sessions: SessionDirectory;
  send: SendService;
  log: Logger;
  /** Seconds from the event's publication to its message in the help desk. */
  latency?: Histogram;
}

/** The help-desk workflow's activity: plain async functions over the platform. */
export function createHelpdeskActivities(deps: HelpdeskDeps): HelpdeskActivities {
  const { platform, log } = deps;
  return {
    async relayHelpdeskItems({ instanceId, appId, chatId, items }: HelpdeskRelayInput): Promise<number> {
      const app = await platform.apps.helpdesk(instanceId, appId);
      if (!app?.enabled) return 0; // deleted or disabled meanwhile: nothing more to relay
      const client = new ChatwootClient(app, platform.config.WEBHOOK_ALLOW_PRIVATE);
      // A batch run again after a failure: its first items are done (their mappings say so), and
      // one may have been written without its answer (looked for by source_id).
      const retrying = Context.current().info.attempt > 1;
      let done = 0;
      try {
        for (const item of items) {
          if (item.kind === "agent") await sendAgentReply({ platform, send: deps.send }, app, client, chatId, item);
          else {
            const outcome = await relayEvent({ platform, sessions: deps.sessions }, app, client, item, retrying);
            if (outcome === "relayed") deps.latency?.observe((Date.now() - item.publishedAt) / 1000);
          }
          done++;
        }
        return done;
      } catch (err) {
        if (!(err instanceof ChatwootError)) throw err;
        if (err.status === 404) {
          // The contact or conversation we remembered was deleted in the help desk: find or make it again.
          await platform.redis.del(platform.keys.helpdeskChat(appId, chatId));
          throw err;
        }
        // A wrong token or a forbidden inbox can be mended by changing the app: keep trying for the day.
        if (err.permanent && err.status !== 401 && err.status !== 403) {
          log.warn({ instanceId, appId, chatId, err: err.message }, "help desk refused an item: the batch dropped");
          throw ApplicationFailure.nonRetryable(err.message, "HelpdeskRefused");
        }
        throw err;
      }
    },
  };
}
