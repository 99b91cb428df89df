import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** 256-bit random bearer secret, URL-safe. */
export const newSecretToken = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;

/** Tokens are stored only as SHA-256 digests (hex). */
export const hashToken = (token: string) => hash("sha256", token, "hex");

/** Constant-time equality of two hex digests of the same length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Constant-time comparison of a presented secret with the expected one (any lengths). */
export const secretMatches = (presented: string, expected: string) =>
  digestsEqual(hashToken(presented), hashToken(expected));
