import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** Random base32 text of `chars` characters (5 bits each). */
export function randomBase32(chars: number): string {
  const bytes = randomBytes(chars);
  let out = "";
  for (let i = 0; i < chars; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

/** Instance ids start with `i` (spec). 120 random bits. */
export const newInstanceId = () => `i${randomBase32(24)}`;
export const newAccountId = () => `acc_${randomBase32(24)}`;
