import {
  type ErrorCode,
  templateCreateBody,
  templateCreatedSchema,
  templateDeleteInput,
  templateListQuery,
  templatePageSchema,
} from "@gw/contracts";
import { z } from "zod";
import { connectedOwner } from "../trpc/connected.ts";
import { instanceProcedure, router } from "../trpc/init.ts";

const tags = ["Templates"];
const ERRORS: ErrorCode[] = ["instance_not_connected", "network_error", "network_unavailable", "network_timeout"];

/** Spec 4.12: the operator-approved templates of the instance's business account (official gateway only). */
export const templatesRouter = router({
  listTemplates: instanceProcedure
    .meta({
      auth: "instance",
      errors: ERRORS,
      openapi: {
        method: "GET",
        path: "/instances/{instanceId}/templates",
        tags,
        summary: "The business account's templates, filtered; operator cursors in `paging.cursors`",
      },
    })
    .input(templateListQuery)
    .output(templatePageSchema)
    .query(async ({ ctx, input: { instanceId, ...q } }) =>
      (await connectedOwner(ctx)).op(instanceId, "templates.list", q),
    ),

  createTemplate: instanceProcedure
    .meta({
      auth: "instance",
      successStatus: 201,
      errors: [...ERRORS, "network_rejected"],
      openapi: {
        method: "POST",
        path: "/instances/{instanceId}/templates",
        tags,
        summary: "Submit a template for approval; the verdict arrives as `template.status`",
        description: "`components` in the operator's format (`HEADER`, `BODY`, `FOOTER`, `BUTTONS`).",
      },
    })
    .input(templateCreateBody)
    .output(templateCreatedSchema)
    .mutation(async ({ ctx, input: { instanceId, ...body } }) => {
      const created = await (await connectedOwner(ctx)).op(instanceId, "templates.create", body);
      return { category: created.category, id: created.id, status: "ok" as const };
    }),

  deleteTemplate: instanceProcedure
    .meta({
      auth: "instance",
      errors: [...ERRORS, "network_rejected"],
      openapi: {
        method: "DELETE",
        path: "/instances/{instanceId}/templates/{name}",
        tags,
        summary: "Delete a template: every language of the name, or only the translation `id`",
      },
    })
    .input(templateDeleteInput)
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx, input: { instanceId, ...q } }) =>
      (await connectedOwner(ctx)).op(instanceId, "templates.delete", q),
    ),
});
