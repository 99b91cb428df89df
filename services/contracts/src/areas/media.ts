import { z } from "zod";
import type { Capability } from "../capability.ts";
import { fileSchema } from "../file.ts";

/**
 * Media conversion (spec 4.14 "media (convert audio and video)"; routes ours, docs/media.md): the
 * send path's ffmpeg conversions on request, to prepare a file once and send it many times.
 */

export const CONVERTED_MEDIA_TTL_S = 3600;

export const convertBody = z.object({
  file: fileSchema,
  output: z.enum(["file", "url"], "output: file ou url").default("file").meta({
    description:
      "`file` answers the converted bytes as a file object (base64); `url` keeps them an hour behind a signed link",
  }),
});

export const convertedMediaSchema = z
  .object({
    mimetype: z.string(),
    filename: z.string(),
    size: z.number().int().meta({ description: "Bytes of the converted file" }),
    seconds: z.number().int().optional().meta({ description: "Voice: the duration the network shows" }),
    data: z.string().optional().meta({ description: "Base64 content (output `file`)" }),
    url: z.string().optional().meta({ description: "Signed link, no token needed (output `url`)" }),
    expiresAt: z.iso.datetime().optional().meta({ description: "When the link and the file expire (output `url`)" }),
  })
  .meta({ id: "ConvertedMedia" });
export type ConvertedMedia = z.infer<typeof convertedMediaSchema>;

const both: Capability = { kinds: "both" };
export const mediaCapabilities: Record<string, Capability> = {
  "POST /media/convert/voice": both,
  "POST /media/convert/video": both,
};
