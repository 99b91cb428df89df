import {
  invalid,
  isPictureType,
  PROFILE_PICTURE_MAX_BYTES,
  profileNameBody,
  profilePictureBody,
  profileSchema,
  profileStatusBody,
  successSchema,
} from "@gw/contracts";
import { loadFile, sniffMimetype } from "@gw/sending";
import { avatarOf } from "../http/files.ts";
import { areaRoute } from "../trpc/area-route.ts";
import { connectedOwner } from "../trpc/connected.ts";
import type { Context } from "../trpc/context.ts";
import { NETWORK_ERRORS } from "../trpc/errors.ts";
import { router } from "../trpc/init.ts";

const tags = ["Profile"];
const NETWORK = NETWORK_ERRORS;

const route = areaRoute({ path: "/profile", tags, errors: NETWORK });

type Ctx = Context & { instance: { id: string; phone: string } };

/**
 * The account's own picture is served like any contact's (`/v1/avatars/...`, cached a day): a change
 * made here drops that cache, so the next fetch of the link asks the network for what it now keeps.
 */
async function forgetOwnPicture(ctx: Ctx): Promise<void> {
  const { platform, instance } = ctx;
  if (instance.phone) await platform.redis.del(platform.keys.avatar(instance.id, `${instance.phone}@c.us`));
}

const pictureError = (detail: string) => invalid("file", detail, "A foto do perfil deve ser JPEG ou PNG.");

/** Spec 4.3: the connected account's profile, standard instances (the capability table answers the 501s). */
export const profileRouter = router({
  profileGet: route("GET", "", "The account's profile: id, name, picture link and about text", {
    description:
      "`picture` is a signed link (24 h) to the picture others see, null without one; `about` is the text of " +
      "PUT /profile/status (null when the network does not show it).",
  })
    .output(profileSchema)
    .query(async ({ ctx }) => {
      const owner = await connectedOwner(ctx);
      const me = await owner.op(ctx.instance.id, "profile.get", {});
      const chatId = `${me.phone}@c.us`;
      // Whether there is a picture decides the link: the bytes are cached with it, as contacts' are.
      const picture = await avatarOf(ctx.platform, ctx.sessions, ctx.instance.id, chatId);
      return {
        id: chatId,
        name: me.name,
        picture: picture ? ctx.platform.mediaLinks.avatar(ctx.instance.id, chatId) : null,
        about: me.about,
      };
    }),

  profileSetName: route("PUT", "/name", "Change the account's name (its push name)", {
    description:
      "Up to 25 characters. The instance's `pushName` and `GET /me` follow, and so do the account's other " +
      "linked devices; contacts see it on what the account sends next.",
  })
    .input(profileNameBody)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await (await connectedOwner(ctx)).op(ctx.instance.id, "profile.setName", { name: input.name });
      return { success: true as const };
    }),

  profileSetStatus: route("PUT", "/status", "Change the account's about text", {
    description: "`status`: the about text, up to 139 characters.",
  })
    .input(profileStatusBody)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await (await connectedOwner(ctx)).op(ctx.instance.id, "profile.setStatus", { status: input.status });
      return { success: true as const };
    }),

  profileSetPicture: route("PUT", "/picture", "Change the account's picture", {
    file: true,
    errors: [...NETWORK, "url_not_allowed", "payload_too_large"],
    description:
      "`file` (spec 2.5): a JPEG or PNG (told by its bytes), up to 5 MB, by `url` or `data`. The network keeps " +
      "a square 640×640 JPEG of it (cut to the centre).",
  })
    .input(profilePictureBody)
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      const media = ctx.sending.sender.composeDeps.media;
      const declared = input.file.mimetype?.split(";")[0]?.trim().toLowerCase();
      if (declared && !isPictureType(declared)) {
        throw invalid(
          "file.mimetype",
          `use image/jpeg ou image/png (recebido ${declared})`,
          "A foto do perfil deve ser JPEG ou PNG.",
        );
      }
      const owner = await connectedOwner(ctx);
      const file = await loadFile(input.file, {
        ...media,
        field: "file",
        maxBytes: Math.min(PROFILE_PICTURE_MAX_BYTES, media.maxBytes),
      });
      // By the bytes: a declared or served type says nothing of what the file really is.
      const kind = sniffMimetype(file.data.subarray(0, 64));
      if (kind !== "image/jpeg" && kind !== "image/png") {
        throw pictureError(`o arquivo não é JPEG nem PNG (${kind ?? file.mimetype})`);
      }
      await owner.op(ctx.instance.id, "profile.setPicture", { data: file.data.toString("base64"), mimetype: kind });
      await forgetOwnPicture(ctx);
      return { success: true as const };
    }),

  profileRemovePicture: route("DELETE", "/picture", "Remove the account's picture")
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await (await connectedOwner(ctx)).op(ctx.instance.id, "profile.removePicture", {});
      await forgetOwnPicture(ctx);
      return { success: true as const };
    }),
});
