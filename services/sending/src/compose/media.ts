import { requireChat } from "@gw/contracts";
import { convertVideo, convertVoice, type LoadedFile } from "../media/index.ts";
import {
  type ComposerTable,
  capt,
  checkMedia,
  type FileRef,
  type KindInput,
  load,
  mediaOf,
  type RequestOf,
} from "./shared.ts";

type MediaRoute = "image" | "file" | "voice" | "video" | "sticker";

/** A media kind's input (any of the five). */
type MediaInput = Omit<KindInput<MediaRoute>, "req"> & { req: RequestOf<MediaRoute> };

/** The route's one file, checked before a queued send's 202. */
const theFile = ({ req }: MediaInput): FileRef[] => [[req.body.file, "file"]];

/** The file loaded (`convert`: turned into the route's kind first) and checked against the route and the instance's kind. */
async function loaded(input: MediaInput, convert?: (file: LoadedFile) => Promise<LoadedFile>): Promise<LoadedFile> {
  const { instance, req, deps } = input;
  let file = await load(req.body.file, deps);
  if (convert) file = await convert(file);
  checkMedia(instance, req, file);
  return file;
}

/** Images, documents, voice messages, videos and stickers: one file each. */
export const mediaKinds: Pick<ComposerTable, MediaRoute> = {
  image: {
    files: theFile,
    compose: async (input, options) => {
      const chatId = requireChat(input.req.body);
      const file = await loaded(input);
      return { chatId, content: { type: "image", media: mediaOf(file), ...capt(input.req.body.caption) }, options };
    },
  },

  file: {
    files: theFile,
    compose: async (input, options) => {
      const chatId = requireChat(input.req.body);
      const file = await loaded(input);
      return { chatId, content: { type: "document", media: mediaOf(file), ...capt(input.req.body.caption) }, options };
    },
  },

  voice: {
    files: theFile,
    compose: async (input, options) => {
      const b = input.req.body;
      const chatId = requireChat(b);
      let seconds: number | undefined;
      const file = await loaded(
        input,
        b.convert
          ? async (original) => {
              const converted = await convertVoice(original, input.deps.convert);
              seconds = converted.seconds;
              return converted;
            }
          : undefined,
      );
      return {
        chatId,
        content: { type: "voice", media: mediaOf(file), ...(seconds !== undefined ? { seconds } : {}) },
        options,
      };
    },
  },

  video: {
    files: theFile,
    compose: async (input, options) => {
      const b = input.req.body;
      const chatId = requireChat(b);
      const file = await loaded(
        input,
        b.convert ? (original) => convertVideo(original, input.deps.convert) : undefined,
      );
      return {
        chatId,
        content: { type: "video", media: mediaOf(file), ...capt(b.caption), ...(b.asNote ? { asNote: true } : {}) },
        options,
      };
    },
  },

  sticker: {
    files: theFile,
    compose: async (input, options) => {
      const chatId = requireChat(input.req.body);
      const file = await loaded(input);
      return { chatId, content: { type: "sticker", media: mediaOf(file) }, options };
    },
  },
};
