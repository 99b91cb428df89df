import { z } from "zod";
import type { Capability } from "../capability.ts";
import { DOC_PATTERNS, documented } from "../doc-patterns.ts";
import { emailSchema } from "../email.ts";
import { BASE64_PROBLEM, parseBase64Content } from "../file.ts";
import { PICTURE_TYPES } from "../media-kinds.ts";
import { defineOps } from "../ops.ts";

/**
 * Official-gateway instances: the business profile (spec 4.11, shapes of 2.10) and the number's
 * data on the operator side (spec 4.14 "number data on the operator side": a route of our design,
 * `GET /phone-number`, docs/official.md).
 */

export const businessProfileSchema = z
  .object({
    about: z.string(),
    address: z.string(),
    description: z.string(),
    email: z.string(),
    profile_picture_url: z.string(),
    vertical: z.string(),
    websites: z.array(z.string()),
  })
  .meta({ id: "BusinessProfile" });
export type BusinessProfile = z.infer<typeof businessProfileSchema>;

export const businessProfileEnvelope = z.object({ data: z.array(businessProfileSchema) });

const website = z
  .string()
  .max(256, "cada site: até 256 caracteres")
  .regex(/^https?:\/\/\S+$/, "cada site começa com http:// ou https://");

/** PATCH: only sent fields change (the operator's limits, reference cloud-api.md §4.2). */
export const businessProfilePatch = z.object({
  about: z.string().min(1, "about: de 1 a 139 caracteres").max(139, "about: de 1 a 139 caracteres").optional(),
  address: z.string().max(256, "address: até 256 caracteres").optional(),
  description: z.string().max(512, "description: até 512 caracteres").optional(),
  email: z.union([z.literal(""), emailSchema().max(128, "email: até 128 caracteres")]).optional(),
  vertical: z
    .string()
    .regex(/^[A-Z_]{2,40}$/, "vertical: um setor do operador em maiúsculas (ex.: RETAIL, EDU, OTHER)")
    .optional(),
  websites: z.array(website).max(2, "até 2 sites").optional(),
});
export type BusinessProfilePatch = z.infer<typeof businessProfilePatch>;

/** PUT /business-profile/picture: `data` required (base64), JPG or PNG, square, at least 192x192. */
export const businessPictureBody = z.object({
  file: z
    .object(
      {
        data: documented(z.string("informe file.data (base64)").min(1, "file.data vazio"), {
          pattern: DOC_PATTERNS.base64,
        }),
        mimetype: z.enum(PICTURE_TYPES, "file.mimetype: image/jpeg ou image/png").optional(),
      },
      "informe file { data, mimetype? }",
    )
    .meta({
      description: "`data`: base64 content of a JPG or PNG, or a data: URL of it (its type declares the file's)",
    })
    .transform((file, ctx) => {
      // The bare base64 of the bytes; a data: URL of it is taken as for every file, its type as
      // the declared one when `mimetype` is absent (the bytes must agree with it).
      const content = parseBase64Content(file.data);
      if (!content.ok) {
        ctx.addIssue({ code: "custom", path: ["data"], message: BASE64_PROBLEM[content.reason] });
        return z.NEVER;
      }
      const declared = file.mimetype ?? content.urlType?.split(";")[0]?.trim().toLowerCase();
      return { data: content.base64, ...(declared ? { mimetype: declared } : {}) };
    }),
});
export const BUSINESS_PICTURE_MIN_SIDE = 192;

/** The number as the operator sees it. */
export const phoneNumberInfoSchema = z
  .object({
    phoneNumberId: z.string(),
    displayPhoneNumber: z.string().meta({ description: "As the operator shows it, e.g. `+55 11 99999-0000`" }),
    phone: z.string().meta({ description: "Digits with country code" }),
    verifiedName: z.string().meta({ description: "The display name" }),
    nameStatus: z.string().meta({ description: "APPROVED, PENDING_REVIEW, DECLINED, AVAILABLE_WITHOUT_REVIEW, …" }),
    qualityRating: z.string().meta({ description: "GREEN, YELLOW, RED or UNKNOWN" }),
    messagingLimitTier: z.string().meta({ description: "TIER_250, TIER_2K, TIER_10K, TIER_100K, TIER_UNLIMITED, …" }),
    throughput: z.string().meta({ description: "Messages per second class: STANDARD, HIGH, NOT_APPLICABLE" }),
    status: z.string().meta({ description: "CONNECTED, FLAGGED, RESTRICTED, …" }),
    codeVerificationStatus: z.string(),
    platformType: z.string(),
  })
  .meta({ id: "PhoneNumberInfo" });
export type PhoneNumberInfo = z.infer<typeof phoneNumberInfoSchema>;

export const businessOps = defineOps({
  "business.profile": { input: z.object({}), output: businessProfileSchema },
  "business.updateProfile": { input: businessProfilePatch, output: businessProfileSchema },
  "business.setPicture": {
    input: z.object({ data: z.string(), mimetype: z.string() }),
    output: businessProfileSchema,
  },
  "business.phoneNumber": { input: z.object({}), output: phoneNumberInfoSchema },
});

// --- capabilities ------------------------------------------------------------------------------

const official: Capability = { kinds: "official" };

/** Spec 4.11 (business profile) and 4.14's number data on the operator side: official-only. */
export const businessCapabilities: Record<string, Capability> = {
  "GET /business-profile": official,
  "PATCH /business-profile": official,
  "PUT /business-profile/picture": official,
  "GET /phone-number": official,
};
