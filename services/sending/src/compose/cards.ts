import { invalid, requireChat } from "@gw/contracts";
import type { ComposerTable } from "./shared.ts";

function requireEventTimes(e: { startTime: number; endTime?: number | undefined }): void {
  if (e.endTime !== undefined && e.endTime < e.startTime) {
    throw invalid("event.endTime", "endTime deve ser depois de startTime");
  }
}

/** Locations, contact cards and calendar events: the body carries all of it. */
export const cardKinds: Pick<ComposerTable, "location" | "contact-vcard" | "event"> = {
  location: {
    compose: ({ req: { body: b } }, options) => ({
      chatId: requireChat(b),
      content: {
        type: "location",
        latitude: b.latitude,
        longitude: b.longitude,
        name: b.title,
        ...(b.address ? { address: b.address } : {}),
      },
      options,
    }),
  },

  "contact-vcard": {
    compose: ({ req: { body: b } }, options) => ({
      chatId: requireChat(b),
      content: { type: "contacts", contacts: b.contacts },
      options,
    }),
  },

  event: {
    check: ({ req }) => requireEventTimes(req.body.event),
    compose: ({ req: { body: b } }, options) => {
      requireEventTimes(b.event);
      return { chatId: requireChat(b), content: { type: "event", ...b.event }, options };
    },
  },
};
