// Schema violations schemathesis' negative_data_rejection found served (`node scripts/fuzz.mjs
// --quick`), at the contract: the validation refuses what the document refuses, or the document
// admits what the validation rightly accepts.
import { describe, expect, it } from "vitest";
import { createAccountInput } from "./admin.ts";
import { businessProfilePatch } from "./areas/business.ts";
import { chatOf } from "./chat-id.ts";
import { DOC_PATTERNS } from "./doc-patterns.ts";
import { pageOffsetBodySchema, pageOffsetSchema } from "./paging.ts";

describe("e-mail of the business profile and of an account (the document's `email` format)", () => {
  it("refuses a domain label with a hyphen at either end, a local part over 64 or a whole over 254", () => {
    for (const email of [
      "a@b-.com",
      "a@-b.com",
      "dWcVfJ1J+@oA20.qcRXAdl0iXC9.gOZ.m0V-.xFW.CwHmJBmh.rHgs0K.UI",
      `${"a".repeat(65)}@loja.com.br`,
      `a@${`${"b".repeat(60)}.`.repeat(5)}com`, // over 254 characters
    ]) {
      expect(businessProfilePatch.safeParse({ email }).success, email).toBe(false);
      expect(createAccountInput.safeParse({ name: "Loja", email }).success, email).toBe(false);
    }
  });
  it("accepts addresses and the empty string (clears it)", () => {
    for (const email of ["loja@lojacentro.com.br", "a.b+c@x-y.com.br", `${"a".repeat(64)}@loja.com.br`, ""]) {
      expect(businessProfilePatch.safeParse({ email }).success, email).toBe(true);
    }
  });
});

describe("a JSON body's offset", () => {
  it("is a JSON number: null, text and booleans are refused (a query string's text is coerced)", () => {
    for (const v of [null, "5", true]) expect(pageOffsetBodySchema.safeParse(v).success, String(v)).toBe(false);
    expect(pageOffsetBodySchema.parse(undefined)).toBe(0);
    expect(pageOffsetBodySchema.parse(5)).toBe(5);
    expect(pageOffsetSchema.parse("5")).toBe(5);
  });
});

describe("chat fields of a body: empty names nothing (the alias is taken), as documented", () => {
  it("chatField and typingChat admit the empty string and still refuse other forms", () => {
    for (const pattern of [DOC_PATTERNS.chatField, DOC_PATTERNS.typingChat]) {
      const re = new RegExp(pattern);
      expect(re.test("")).toBe(true);
      expect(re.test("5511999990000")).toBe(true);
      expect(re.test("abc")).toBe(false);
    }
    expect(new RegExp(DOC_PATTERNS.typingChat).test("120363401234567890@newsletter")).toBe(false);
  });
});

describe("the alias beside a chatId", () => {
  it("a phone that is no chat is refused even with a good chatId (details.phone)", () => {
    expect(() => chatOf({ chatId: "5511988887777", phone: "\u0084" })).toThrow(
      expect.objectContaining({ code: "validation_error", details: { phone: expect.any(String) } }),
    );
  });
  it("a good or empty phone beside a chatId: the chatId wins, as before", () => {
    expect(chatOf({ chatId: "5511988887777", phone: "5511977776666" })).toBe("5511988887777@c.us");
    expect(chatOf({ chatId: "5511988887777", phone: "" })).toBe("5511988887777@c.us");
    expect(chatOf({ chatId: "", phone: "5511977776666" })).toBe("5511977776666@c.us");
  });
});
