// Stream tickets: signed, bound to a scope and a credential fingerprint, valid a minute.
import { expect, it } from "vitest";
import { StreamTickets, TICKET_TTL_MS } from "./tickets.ts";

const tickets = new StreamTickets("internal-secret-for-the-test-0123");

it("verifies for its scope and fingerprint until it expires", () => {
  const now = 1_800_000_000_000;
  const { ticket, expiresAt } = tickets.mint("i123", "fp", now);
  expect(expiresAt).toBe(now + TICKET_TTL_MS);
  expect(tickets.verify(ticket, "i123", "fp", now)).toBe(true);
  expect(tickets.verify(ticket, "i123", "fp", now + TICKET_TTL_MS - 1)).toBe(true);
  expect(tickets.verify(ticket, "i123", "fp", now + TICKET_TTL_MS)).toBe(false);
  expect(tickets.verify(ticket, "i999", "fp", now)).toBe(false);
  expect(tickets.verify(ticket, "i123", "rotated", now)).toBe(false);
  expect(new StreamTickets("another-secret-0123456789abcdef").verify(ticket, "i123", "fp", now)).toBe(false);
});

it("refuses what is not one of its tickets", () => {
  for (const bad of ["", "v1", "v1.a.b", "v2.a.b.c", "v1.zz.n.sig", "v1..."]) {
    expect(tickets.verify(bad, "i123", "fp")).toBe(false);
  }
});

it("each ticket is different (a nonce), none carries the fingerprint", () => {
  const one = tickets.mint("i123", "secret-fingerprint").ticket;
  const two = tickets.mint("i123", "secret-fingerprint").ticket;
  expect(one).not.toBe(two);
  expect(one).not.toContain("secret-fingerprint");
});
