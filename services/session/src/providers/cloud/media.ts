import { createHash } from "node:crypto";
import type { OutboundMedia } from "@gw/contracts";
import type { Keys, Platform } from "@gw/platform";
import { FormData } from "undici";
import { type GraphTarget, graph } from "./graph.ts";

/** The operator keeps an upload 30 days; its id is reused a day less. */
const MEDIA_ID_TTL_S = 29 * 86_400;

const MEDIA_KINDS = ["image", "video", "audio", "document", "sticker"] as const;

/**
 * Media of official-gateway messages (reference cloud-api.md §1.5). Outbound: the bytes (checked
 * against the operator's limits by the send path) are uploaded once and sent by media id; the same
 * bytes sent again reuse the id. Inbound: the webhook names a media id; its URL (valid 5 minutes)
 * is asked for when the signed link is opened, and downloaded with the instance's token.
 */
export class CloudMedia {
  constructor(
    private readonly redis: Platform["redis"],
    private readonly k: Keys,
    private readonly instanceId: string,
  ) {}

  async upload(target: GraphTarget, phoneNumberId: string, media: OutboundMedia): Promise<string> {
    const bytes = Buffer.from(media.data, "base64");
    const mimetype = media.mimetype.split(";")[0]!.trim();
    const hash = createHash("sha256").update(mimetype).update("\n").update(bytes).digest("hex");
    const key = this.k.cloudMedia(this.instanceId, hash);
    const known = await this.redis.get(key);
    if (known) return known;
    const form = new FormData();
    form.set("messaging_product", "whatsapp");
    form.set("type", mimetype);
    form.set(
      "file",
      new Blob([bytes], { type: mimetype }),
      media.filename ?? `file.${mimetype.split("/")[1] ?? "bin"}`,
    );
    const { id } = await graph.form<{ id: string }>(target, `${phoneNumberId}/media`, form);
    await this.redis.set(key, id, "EX", MEDIA_ID_TTL_S);
    return id;
  }

  /** The bytes of a received message's media, from its raw webhook message; null when it has none. */
  async download(target: GraphTarget, rawMessage: string | null): Promise<{ data: string; mimetype: string } | null> {
    if (!rawMessage) return null;
    const msg = JSON.parse(rawMessage) as Record<string, { id?: string; mime_type?: string } | undefined>;
    const kind = MEDIA_KINDS.find((k) => typeof msg[k]?.id === "string");
    if (!kind) return null;
    const info = await graph.get<{ url: string; mime_type?: string }>(target, msg[kind]!.id!);
    const got = await graph.download(target, info.url);
    return { data: got.data.toString("base64"), mimetype: info.mime_type ?? msg[kind]?.mime_type ?? got.mimetype };
  }
}
