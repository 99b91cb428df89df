import { createHmac, timingSafeEqual } from "node:crypto";

export const MEDIA_LINK_TTL_S = 24 * 3600;
const AVATAR_REUSE_MS = 60_000;
const AVATAR_CACHE_MAX = 50_000;

/**
 * Signed media links (spec 2.11, 5.7): `{base}/v1/files/<instanceId>/<messageId>.<ext>?exp=&sig=`
 * and `/v1/avatars/<instanceId>/<chatId>.jpg?…`. No token: the HMAC of the path and the expiry
 * authorizes; valid 24 h; checked in constant time.
 */
export class MediaLinks {
  private readonly avatars = new Map<string, { url: string; until: number }>();

  constructor(
    private readonly secret: string,
    private readonly baseUrl: string,
  ) {}

  private sig(path: string, exp: number): string {
    return createHmac("sha256", this.secret).update(`${path}\n${exp}`).digest("base64url");
  }

  /** `path` starts with `/v1/`; valid `ttlS` seconds (24 h by default, spec 8). */
  sign(path: string, now = Date.now(), ttlS = MEDIA_LINK_TTL_S): string {
    const exp = Math.floor(now / 1000) + ttlS;
    return `${this.baseUrl.replace(/\/$/, "")}${path}?exp=${exp}&sig=${this.sig(path, exp)}`;
  }

  /**
   * A contact's or group's picture (spec 1 rule 7): answers 404 while none is visible. Every
   * message event carries two, so a link is reused for up to a minute (it stays valid for at
   * least 23 h 59 min) instead of signing it again each time.
   */
  avatar(instanceId: string, chatId: string, now = Date.now()): string {
    const path = `/v1/avatars/${instanceId}/${chatId}.jpg`;
    const hit = this.avatars.get(path);
    if (hit && hit.until > now) return hit.url;
    const url = this.sign(path, now);
    if (this.avatars.size >= AVATAR_CACHE_MAX) this.avatars.clear();
    this.avatars.set(path, { url, until: now + AVATAR_REUSE_MS });
    return url;
  }

  verify(path: string, exp: unknown, sig: unknown, now = Date.now()): boolean {
    if (typeof exp !== "string" || typeof sig !== "string" || !/^\d{1,12}$/.test(exp)) return false;
    const e = Number(exp);
    if (e * 1000 < now) return false;
    const want = Buffer.from(this.sig(path, e));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

const EXT: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/gif": "gif",
  "video/mp4": "mp4",
  "video/3gpp": "3gp",
  "audio/ogg": "ogg",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "audio/aac": "aac",
  "application/pdf": "pdf",
};

/** A file extension for a mimetype (`bin` when unknown). */
export function extensionOf(mimetype: string, filename?: string | null): string {
  const base = mimetype.split(";")[0]!.trim().toLowerCase();
  if (EXT[base]) return EXT[base];
  const fromName = filename ? /\.([A-Za-z0-9]{1,8})$/.exec(filename)?.[1] : undefined;
  return fromName ? fromName.toLowerCase() : "bin";
}
