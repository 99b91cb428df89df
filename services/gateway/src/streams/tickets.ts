import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a ticket opens streams: long enough to open one, short enough that a logged URL is worthless. */
export const TICKET_TTL_MS = 60_000;

/**
 * Stream tickets (docs/streams.md "Tickets"): what a browser puts in `?ticket=` because
 * EventSource and WebSocket cannot send headers. `v1.<expiry ms, base 36>.<nonce>.<signature>`,
 * the signature an HMAC-SHA256 of the scope (an instance id, or `admin`), the expiry, the nonce
 * and the fingerprint of the credential it was minted with (the instance token's stored hash).
 *
 * Signed, not stored: minting writes nothing, any replica verifies it with the shared internal
 * secret, and it stays valid for its whole minute, so EventSource's own reconnection (the same
 * URL, `Last-Event-ID` added) works without the page minting another. Binding the token's hash
 * voids every ticket of an instance the moment its token is rotated or the instance deleted — the
 * revocation a stored ticket would have given. What a signed ticket cannot be is single-use; within
 * its minute it opens this one instance's streams only, which its holder could read anyway.
 */
export class StreamTickets {
  private readonly key: Buffer;

  constructor(internalSecret: string) {
    // A key of its own, derived: a ticket can never pass for another signature made with the secret.
    this.key = createHmac("sha256", internalSecret).update("stream-tickets").digest();
  }

  mint(scope: string, fingerprint: string, now = Date.now()): { ticket: string; expiresAt: number } {
    const expiresAt = now + TICKET_TTL_MS;
    const exp = expiresAt.toString(36);
    const nonce = randomBytes(8).toString("base64url");
    return { ticket: `v1.${exp}.${nonce}.${this.sign(scope, exp, nonce, fingerprint)}`, expiresAt };
  }

  /** Whether `ticket` was minted for `scope` with this `fingerprint` and has not expired. */
  verify(ticket: string, scope: string, fingerprint: string, now = Date.now()): boolean {
    const parts = ticket.split(".");
    if (parts.length !== 4 || parts[0] !== "v1") return false;
    const [, exp = "", nonce = "", signature = ""] = parts;
    const expiresAt = Number.parseInt(exp, 36);
    if (!Number.isFinite(expiresAt) || expiresAt <= now) return false;
    const expected = Buffer.from(this.sign(scope, exp, nonce, fingerprint));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(scope: string, exp: string, nonce: string, fingerprint: string): string {
    return createHmac("sha256", this.key).update(`${scope}|${exp}|${nonce}|${fingerprint}`).digest("base64url");
  }
}
