import { instanceExamples } from "./define.ts";
import { BASE_URL, fileUrlRefused, INSTANCE_ID, iso, NOW_S } from "./samples.ts";

const CONVERTED_ID = "cv_7d2k9m4q8x1c5v3b6n0h2j4r8t";
const cannotConvert = {
  message: "Não foi possível converter o arquivo.",
  details: { file: "não foi possível converter o arquivo: o arquivo não contém áudio" },
};

/** Spec 4.14 media conversion (routers/media.ts; test/e2e/media.test.ts; docs/media.md). */
export const mediaExamples = instanceExamples({
  convertVoice: {
    summary: "Converted once, kept an hour behind a signed link that a send's file.url accepts",
    body: { file: { url: "https://cdn.lojacentro.com.br/audios/boas-vindas.mp3" }, output: "url" },
    response: {
      mimetype: "audio/ogg; codecs=opus",
      filename: "boas-vindas.ogg",
      size: 48_213,
      seconds: 12,
      url: `${BASE_URL}/v1/files/${INSTANCE_ID}/${CONVERTED_ID}.ogg?exp=${NOW_S + 3600}&sig=pQ7vR2xK9mN4bT8cW1zL6yH3jF5dS0aE2gU7iO4kXcM`,
      expiresAt: iso(NOW_S + 3600),
    },
    errors: { validation_error: cannotConvert, url_not_allowed: fileUrlRefused },
  },
  convertVideo: {
    summary: "The converted bytes in the answer (output: file; `data` shortened here)",
    body: {
      file: { url: "https://cdn.lojacentro.com.br/videos/vitrine.mov", filename: "vitrine.mov" },
      output: "file",
    },
    response: {
      mimetype: "video/mp4",
      filename: "vitrine.mp4",
      size: 1_845_220,
      data: "AAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMW1wNDE=",
    },
    errors: {
      validation_error: {
        message: "Não foi possível converter o arquivo.",
        details: { file: "não foi possível converter o arquivo: o arquivo não contém vídeo" },
      },
      url_not_allowed: fileUrlRefused,
    },
  },
});
