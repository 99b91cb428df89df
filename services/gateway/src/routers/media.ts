import { CONVERTED_MEDIA_TTL_S, type ConvertedMedia, convertBody, convertedMediaSchema } from "@gw/contracts";
import { extensionOf } from "@gw/platform";
import { convertVideo, convertVoice, type LoadedFile, loadFile } from "@gw/sending";
import type { z } from "zod";
import { areaRoute } from "../trpc/area-route.ts";
import type { Context } from "../trpc/context.ts";
import { router } from "../trpc/init.ts";

const tags = ["Media"];

const convertRoute = areaRoute({ path: "/media/convert", tags, errors: ["url_not_allowed", "payload_too_large"] });
const route = (kind: "voice" | "video", summary: string, description: string) =>
  convertRoute("POST", `/${kind}`, summary, { file: true, description })
    .input(convertBody)
    .output(convertedMediaSchema);

const LIMITS =
  "The same file handling as the send routes: `file.url` fetched with the same guard, the same 70 MB limit, " +
  "the same ffmpeg and time limit (60 s voice, 180 s video unless `MEDIA_CONVERT_TIMEOUT_MS` is set); a file ffmpeg cannot convert, " +
  "or whose conversion runs out of time, is `422` with `details.file`. " +
  '`output: "url"` keeps the result an hour behind a signed link (`/v1/files/...`, no token), which a send\'s `file.url` accepts.';

type Body = z.infer<typeof convertBody>;

async function answer(ctx: Context & { instance: { id: string } }, body: Body, out: LoadedFile & { seconds?: number }) {
  const filename = out.filename ?? `converted.${extensionOf(out.mimetype)}`;
  const base: ConvertedMedia = {
    mimetype: out.mimetype,
    filename,
    size: out.data.length,
    ...(out.seconds !== undefined ? { seconds: out.seconds } : {}),
  };
  if (body.output === "file") return { ...base, data: out.data.toString("base64") };
  const id = await ctx.platform.converted.put(ctx.instance.id, { ...out, filename }, CONVERTED_MEDIA_TTL_S);
  const now = Date.now();
  const path = `/v1/files/${ctx.instance.id}/${id}.${extensionOf(out.mimetype, filename)}`;
  return {
    ...base,
    url: ctx.platform.mediaLinks.sign(path, now, CONVERTED_MEDIA_TTL_S),
    expiresAt: new Date(now + CONVERTED_MEDIA_TTL_S * 1000).toISOString(),
  };
}

const load = (ctx: Context, body: Body) =>
  loadFile(body.file, { ...ctx.sending.sender.composeDeps.media, field: "file" });
/** The sends' ffmpeg limits (MEDIA_CONVERT_TIMEOUT_MS). */
const convertOptions = (ctx: Context) => ctx.sending.sender.composeDeps.convert ?? {};

/** Spec 4.14 media: converting audio and video on request (docs/media.md); no network involved. */
export const mediaRouter = router({
  convertVoice: route(
    "voice",
    "Convert audio to a voice note (OGG/Opus, mono 48 kHz)",
    `What \`/messages/voice\` with \`convert: true\` sends; \`seconds\` is the duration the network shows. ${LIMITS}`,
  ).mutation(async ({ ctx, input }) =>
    answer(ctx, input, await convertVoice(await load(ctx, input), convertOptions(ctx))),
  ),

  convertVideo: route(
    "video",
    "Convert a video to MP4 (H.264/AAC) that phones play",
    `What \`/messages/video\` with \`convert: true\` sends. ${LIMITS}`,
  ).mutation(async ({ ctx, input }) =>
    answer(ctx, input, await convertVideo(await load(ctx, input), convertOptions(ctx))),
  ),
});
