import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for data at rest (auth state). Each value: version byte, 12-byte IV, 16-byte tag,
 * ciphertext — base64. The key comes from configuration, never from Redis.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, "base64");
    if (this.key.length !== 32) throw new Error("AUTH_STATE_KEY must be 32 bytes, base64 encoded");
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]).toString("base64");
  }

  open(sealed: string): string {
    const buf = Buffer.from(sealed, "base64");
    if (buf[0] !== 1 || buf.length < 29) throw new Error("sealed value: unknown format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, buf.subarray(1, 13));
    decipher.setAuthTag(buf.subarray(13, 29));
    return Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]).toString("utf8");
  }
}
