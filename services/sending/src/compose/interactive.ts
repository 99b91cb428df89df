import { type FileObject, invalid, type OutboundHeader, requireChat, type TemplateSend } from "@gw/contracts";
import { type ComposeDeps, type ComposerTable, type FileRef, load, mediaOf } from "./shared.ts";

type HeaderInput = NonNullable<TemplateSend["header"]>;

/** A header's media file and its field (`prefix.image`, …), for the checks before a queued send is accepted. */
function headerFile(header: HeaderInput | undefined, prefix: string): FileRef[] {
  if (!header) return [];
  for (const type of ["image", "video", "document"] as const) {
    if (type in header) return [[(header as Record<typeof type, FileObject>)[type], `${prefix}.${type}`]];
  }
  return [];
}

/** A header with its media fetched. */
async function headerOf(header: HeaderInput, deps: ComposeDeps): Promise<OutboundHeader> {
  if ("text" in header) return { text: header.text };
  if ("location" in header) return { location: header.location };
  for (const mediaType of ["image", "video", "document"] as const) {
    if (mediaType in header) {
      const file = (header as Record<typeof mediaType, FileObject>)[mediaType];
      return { mediaType, media: mediaOf(await load(file, deps, `header.${mediaType}`)) };
    }
  }
  throw invalid("header", "cabeçalho inválido");
}

/** Polls, lists, reply buttons and operator-approved templates: messages the recipient answers by tapping. */
export const interactiveKinds: Pick<ComposerTable, "poll" | "list" | "buttons" | "template"> = {
  poll: {
    compose: ({ req: { body: b } }, options) => ({
      chatId: requireChat(b),
      content: { type: "poll", name: b.poll.name, options: b.poll.options, multipleAnswers: b.poll.multipleAnswers },
      options,
    }),
  },

  list: {
    compose: ({ req: { body: b } }, options) => {
      const m = b.message;
      return {
        chatId: requireChat(b),
        content: {
          type: "list",
          title: m.title,
          button: m.button,
          sections: m.sections,
          ...(m.description ? { description: m.description } : {}),
          ...(m.footer ? { footer: m.footer } : {}),
        },
        options,
      };
    },
  },

  buttons: {
    files: ({ req }) => headerFile(req.body.header, "header"),
    compose: async ({ req: { body: b }, deps }, options) => {
      const chatId = requireChat(b);
      const header = b.header ? await headerOf(b.header, deps) : undefined;
      return {
        chatId,
        content: {
          type: "buttons",
          text: b.text,
          buttons: b.buttons,
          ...(header ? { header } : {}),
          ...(b.footer ? { footer: b.footer } : {}),
        },
        options,
      };
    },
  },

  template: {
    files: ({ req }) => headerFile(req.body.template.header, "template.header"),
    compose: async ({ req: { body: b }, deps }, options) => {
      const chatId = requireChat(b);
      const t = b.template;
      const header = t.header ? await headerOf(t.header, deps) : undefined;
      return {
        chatId,
        content: {
          type: "template",
          name: t.name,
          language: t.language,
          ...(header ? { header } : {}),
          ...(t.body ? { body: t.body } : {}),
          ...(t.buttons
            ? {
                buttons: t.buttons.map((btn, i) => ({
                  type: btn.type,
                  value: btn.type === "quick_reply" ? btn.payload : btn.type === "url" ? btn.text : btn.code,
                  index: btn.index ?? i,
                })),
              }
            : {}),
          ...(t.components ? { components: t.components } : {}),
        },
        options,
      };
    },
  },
};
