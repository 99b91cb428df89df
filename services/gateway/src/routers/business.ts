import {
  businessPictureBody,
  businessProfileEnvelope,
  businessProfilePatch,
  type ErrorCode,
  phoneNumberInfoSchema,
} from "@gw/contracts";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import { router } from "../trpc/init.ts";

const tags = ["Business profile"];
const ERRORS: ErrorCode[] = ["instance_not_connected", "network_error", "network_unavailable", "network_timeout"];

const route = areaRoute({ path: "", tags, errors: ERRORS });

/** Spec 4.11 (official gateway only; the capability table answers the 501s) and the number's data. */
export const businessRouter = router({
  getBusinessProfile: route("GET", "/business-profile", "The business profile (spec 2.10), wrapped in `data`")
    .output(businessProfileEnvelope)
    .query(async ({ ctx }) => ({
      data: [await (await connectedOwner(ctx)).op(ctx.instance.id, "business.profile", {})],
    })),

  updateBusinessProfile: route("PATCH", "/business-profile", "Change the business profile; only sent fields change", {
    description: 'An empty string clears a text field, `"websites": []` clears the sites.',
  })
    .input(businessProfilePatch)
    .output(businessProfileEnvelope)
    .mutation(async ({ ctx, input: { instanceId, ...patch } }) => ({
      data: [await (await connectedOwner(ctx)).op(instanceId, "business.updateProfile", patch)],
    })),

  setBusinessPicture: route(
    "PUT",
    "/business-profile/picture",
    "Set the business picture: JPG or PNG, square, at least 192x192",
    { description: "Checked before anything is uploaded; sent through the operator's resumable upload." },
  )
    .input(businessPictureBody)
    .output(businessProfileEnvelope)
    .mutation(async ({ ctx, input }) => ({
      data: [
        await (await connectedOwner(ctx)).op(input.instanceId, "business.setPicture", {
          data: input.file.data,
          mimetype: input.file.mimetype ?? "",
        }),
      ],
    })),

  phoneNumber: route(
    "GET",
    "/phone-number",
    "The number as the operator sees it: quality, messaging limit tier, display name status, throughput",
    {
      description:
        "Spec 4.14 'number data on the operator side'. Changes also arrive as `phone.quality` and `phone.name` events.",
    },
  )
    .output(phoneNumberInfoSchema)
    .query(async ({ ctx }) => (await connectedOwner(ctx)).op(ctx.instance.id, "business.phoneNumber", {})),
});
