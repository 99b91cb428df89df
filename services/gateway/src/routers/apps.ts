import { appIdSchema, appSchema, createAppBody, invalid, updateAppBody } from "@gw/contracts";
import { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import { router } from "../trpc/init.ts";

const tags = ["Apps"];
const route = areaRoute({ path: "/apps", tags, errors: ["not_found"] });
const byApp = z.object({ appId: appIdSchema });

/** Spec 2.10 apps (integrations): records per instance; docs/apps.md says what each one does. */
export const appsRouter = router({
  listApps: route("GET", "", "The instance's apps")
    .output(z.array(appSchema))
    .query(({ ctx }) => ctx.platform.apps.list(ctx.instance.id)),

  createApp: route("POST", "", "Add an app; `config` is validated per app", {
    created: true,
    description:
      "`calls` rejects incoming calls (optionally answering with a text); the phone-number apps normalize the numbers of sends; `mcp` serves the instance's MCP server at `/instances/{instanceId}/mcp` (`config.tools`: which tools); `helpdesk` relays the instance's conversations to a Chatwoot inbox and agents' replies back (its `token` is never shown; `webhookUrl` goes in the inbox's settings; docs/helpdesk.md). One app of each behavioural kind (and one `mcp`) per instance.",
  })
    .input(createAppBody)
    .output(appSchema)
    .mutation(async ({ ctx, input: { instanceId, ...body } }) => {
      if (body.app === "calls" && ctx.instance.kind === "official") {
        throw invalid("app", "não há chamadas em instâncias do gateway oficial");
      }
      return ctx.platform.apps.create(instanceId, body);
    }),

  getApp: route("GET", "/{appId}", "One app")
    .input(byApp)
    .output(appSchema)
    .query(({ ctx, input }) => ctx.platform.apps.get(ctx.instance.id, input.appId)),

  updateApp: route("PATCH", "/{appId}", "Change an app's config, or enable/disable it; only sent fields change")
    .input(byApp.extend(updateAppBody.shape))
    .output(appSchema)
    .mutation(({ ctx, input: { instanceId, appId, ...patch } }) => ctx.platform.apps.update(instanceId, appId, patch)),

  deleteApp: route("DELETE", "/{appId}", "Remove an app")
    .input(byApp)
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.platform.apps.delete(ctx.instance.id, input.appId);
      return { success: true as const };
    }),
});
