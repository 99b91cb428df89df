import { z } from "zod";
import type { Capability } from "../capability.ts";
import { documented } from "../doc-patterns.ts";
import { FILE_ONE_OF, fileObject } from "../file.ts";
import { PICTURE_TYPES } from "../media-kinds.ts";
import { defineOps } from "../ops.ts";

/**
 * Profile (spec 4.3 and 2.10; docs/profile-presence.md): the connected account's own name, about
 * text and picture. The route bodies, the profile as the API shows it, the area's session
 * operations and the routes' capabilities.
 */

/** The network's limits: a push name of up to 25 characters, an about text of up to 139. */
export const PROFILE_NAME_MAX = 25;
export const PROFILE_STATUS_MAX = 139;
/** The picture as given (JPEG or PNG); the network keeps a 640×640 JPEG of it. */
export const PROFILE_PICTURE_MAX_BYTES = 5 * 1024 * 1024;
export const PROFILE_PICTURE_TYPES = PICTURE_TYPES;

// --- route bodies (spec 4.3) -------------------------------------------------------------------

export const profileNameBody = z.object({
  name: z
    .string("informe o nome")
    .trim()
    .min(1, "informe o nome")
    .max(PROFILE_NAME_MAX, `nome: até ${PROFILE_NAME_MAX} caracteres`)
    .meta({ description: `The push name others see, up to ${PROFILE_NAME_MAX} characters` }),
});

export const profileStatusBody = z.object({
  status: z
    .string("informe o status (o recado)")
    .trim()
    .min(1, "informe o status (o recado)")
    .max(PROFILE_STATUS_MAX, `status: até ${PROFILE_STATUS_MAX} caracteres`)
    .meta({ description: `The about text, up to ${PROFILE_STATUS_MAX} characters` }),
});

export const profilePictureBody = z.object({
  // The file object with its own description and the route's types; given through `documented`
  // (a `.meta()` on the registered File schema rendered its override as an unknown keyword).
  file: documented(
    fileObject,
    { ...FILE_ONE_OF, allOf: [{ properties: { mimetype: { enum: [...PROFILE_PICTURE_TYPES] } } }] },
    { description: "JPEG or PNG (spec 2.5 file object), up to 5 MB" },
  ),
});

// --- the API's resource (spec 2.10) ------------------------------------------------------------

export const profileSchema = z
  .object({
    id: z.string().meta({ description: "The account, `<digits>@c.us`" }),
    name: z.string().meta({ description: "Its push name" }),
    picture: z
      .string()
      .nullable()
      .meta({ description: "Signed link to its picture (24 h; 404 once removed), null without one" }),
    about: z.string().nullable().meta({ description: "Its about text (PUT /profile/status), null when not visible" }),
  })
  .meta({ id: "Profile" });
export type Profile = z.infer<typeof profileSchema>;

// --- session operations ------------------------------------------------------------------------

const done = z.object({});

export const profileOps = defineOps({
  /** The account as the network has it now (the picture is read through `picture`, cached as avatars are). */
  "profile.get": {
    input: z.object({}),
    output: z.object({ phone: z.string(), lid: z.string().nullable(), name: z.string(), about: z.string().nullable() }),
  },
  "profile.setName": { input: z.object({ name: z.string().min(1).max(PROFILE_NAME_MAX) }), output: done },
  "profile.setStatus": { input: z.object({ status: z.string().min(1).max(PROFILE_STATUS_MAX) }), output: done },
  /** The picture's bytes (base64) as given, JPEG or PNG: the provider makes what its network keeps. */
  "profile.setPicture": {
    input: z.object({ data: z.string().min(1), mimetype: z.enum(PROFILE_PICTURE_TYPES) }),
    output: done,
  },
  "profile.removePicture": { input: z.object({}), output: done },
});

// --- capabilities ------------------------------------------------------------------------------

const standard: Capability = { kinds: "standard" };

export const profileCapabilities: Record<string, Capability> = {
  "GET /profile": standard,
  "PUT /profile/name": standard,
  "PUT /profile/status": standard,
  "PUT /profile/picture": standard,
  "DELETE /profile/picture": standard,
};
