import type { OutboundContent } from "@gw/contracts";
import { type MediaStore, mediaOf } from "@gw/platform";

/**
 * Puts a send's media bytes in the media store before the network sees them (Sender.send), so
 * that the object exists by the time the message's event — and its signed link — goes out: the
 * session pod's record then only checks it is there (MessageStore.save, content-addressed).
 * Nothing of the bytes goes to Redis on the way.
 */
export async function keepMedia(store: MediaStore, instanceId: string, content: OutboundContent): Promise<void> {
  const media = mediaOf(content);
  if (media?.data) await store.put(instanceId, Buffer.from(media.data, "base64"));
}
