import { requireChat } from "@gw/contracts";
import { type ComposerTable, load, mediaOf } from "./shared.ts";

/** Text, and text with a link preview (the network's own, or one the request describes). */
export const textKinds: Pick<ComposerTable, "text" | "link-preview"> = {
  text: {
    compose: ({ req: { body: b } }, options) => ({
      chatId: requireChat(b),
      content: { type: "text", text: b.text, ...(b.linkPreview !== undefined ? { linkPreview: b.linkPreview } : {}) },
      options,
    }),
  },

  "link-preview": {
    files: ({ instance, req: { body } }) =>
      body.preview.image && instance.kind === "standard" ? [[body.preview.image, "preview.image"]] : [],
    compose: async ({ instance, req: { body: b }, deps }, options) => {
      const chatId = requireChat(b);
      if (instance.kind === "official") {
        // The operator previews the first URL of a text itself; a custom preview cannot be sent.
        const text = b.text.includes(b.preview.url) ? b.text : `${b.text}\n${b.preview.url}`;
        return { chatId, content: { type: "text", text, linkPreview: true }, options };
      }
      const image = b.preview.image ? mediaOf(await load(b.preview.image, deps, "preview.image")) : undefined;
      return {
        chatId,
        content: {
          type: "link_preview",
          text: b.text,
          preview: {
            title: b.preview.title,
            description: b.preview.description,
            url: b.preview.url,
            ...(image ? { image } : {}),
          },
        },
        options,
      };
    },
  },
};
