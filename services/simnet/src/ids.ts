import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/** Crockford base32 (no I, L, O, U). */
export const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function crockfordCode(length = 8): string {
  let out = "";
  for (let i = 0; i < length; i++) out += CROCKFORD[randomInt(CROCKFORD.length)];
  return out;
}

/** What a person types: case and dashes do not matter; I/L read as 1 and O as 0. */
export function normalizeCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** `2@<ref>,<noise key>,<identity key>,<adv secret>`, all base64, like the real network's QR text. */
export function qrValue(): string {
  const b64 = (n: number) => randomBytes(n).toString("base64");
  return `2@${b64(66)},${b64(32)},${b64(32)},${b64(32)}`;
}

export const newSecret = () => randomBytes(32).toString("base64url");
export const newDeviceId = () => `dev_${randomBytes(8).toString("hex")}`;
// Message ids are made on every send: random bytes drawn from a 4 KiB pool, not a call each.
let pool = randomBytes(4096);
let poolAt = 0;
function randomHex(n: number): string {
  if (poolAt + n > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  poolAt += n;
  return pool.toString("hex", poolAt - n, poolAt);
}
/** Message ids look like the real network's: `3EB0` and hex. */
export const newMessageId = () => `3EB0${randomHex(10).toUpperCase()}`;
export const newGroupId = () => `120363${String(randomInt(1e6, 1e7 - 1))}${String(randomInt(1e5, 1e6 - 1))}@g.us`;
export const newChallenge = () => randomBytes(32).toString("base64url");

/** The privacy id of a number: stable (the same number always gets the same lid). */
export function lidOf(phone: string): string {
  const h = createHash("sha256").update(`simnet-lid:${phone}`).digest();
  const n = h.readBigUInt64BE(0) % 900_000_000_000_000n;
  return `${100_000_000_000_000n + n}@lid`;
}

export function sameSecret(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Digits of a phone given as digits, `+55 (11) 9…`, or `<digits>@c.us`; null if not a phone. */
export function phoneDigits(raw: string): string | null {
  const d = raw.replace(/@(c\.us|s\.whatsapp\.net)$/, "").replace(/[\s()+.-]/g, "");
  return /^\d{8,15}$/.test(d) ? d : null;
}

/**
 * Brazilian ninth digit: a mobile number is `55 DD 9XXXXXXXX` today, but older accounts are
 * registered as `55 DD XXXXXXXX`. Returns the other form of a Brazilian mobile number, if any.
 */
export function ninthDigitVariant(phone: string): string | null {
  if (!phone.startsWith("55")) return null;
  if (phone.length === 13 && phone[4] === "9") return phone.slice(0, 4) + phone.slice(5);
  if (phone.length === 12 && /[6-9]/.test(phone[4] ?? "")) return `${phone.slice(0, 4)}9${phone.slice(4)}`;
  return null;
}
