import { randomBytes } from "node:crypto";

/** Crockford base32, lower case. */
export const BASE32_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Base32 text of `chars` characters, one per byte of `bytes` (its low 5 bits). */
export function base32Of(bytes: Uint8Array, chars = bytes.length): string {
  let out = "";
  for (let i = 0; i < chars; i++) out += BASE32_ALPHABET[bytes[i]! & 31];
  return out;
}

/** The 10-character time part of a ULID: `ms` (48 bits) in base32, most significant first. */
export function ulidTime(ms: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = BASE32_ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/** Random base32 text of `chars` characters (5 bits each). */
export const randomBase32 = (chars: number): string => base32Of(randomBytes(chars));

/** Instance ids start with `i` (spec). 120 random bits. */
export const newInstanceId = () => `i${randomBase32(24)}`;
export const newAccountId = () => `acc_${randomBase32(24)}`;
