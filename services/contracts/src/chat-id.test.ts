import { describe, expect, it } from "vitest";
import { brazilianMobileAlternate, chatOf, isBrazilianMobile, normalizeChatId, requireChat } from "./chat-id.ts";
import { ApiError } from "./errors.ts";

describe("normalizeChatId (spec 1)", () => {
  it.each([
    ["5511999998888", "5511999998888@c.us"],
    ["+55 (11) 99999-8888", "5511999998888@c.us"],
    ["5511999998888@c.us", "5511999998888@c.us"],
    ["5511999998888@s.whatsapp.net", "5511999998888@c.us"],
    ["5511999998888:12@s.whatsapp.net", "5511999998888@c.us"],
    ["123456789012345@lid", "123456789012345@lid"],
    ["123456789012345:3@lid", "123456789012345@lid"],
    ["120363012345678901@g.us", "120363012345678901@g.us"],
    ["120363012345678901@newsletter", "120363012345678901@newsletter"],
    ["a1b2c3@bsuid", "a1b2c3@bsuid"],
    ["status@broadcast", "status@broadcast"],
  ])("%s → %s", (input, out) => {
    expect(normalizeChatId(input)).toBe(out);
  });

  it.each(["", "abc", "123", "55119999988881234567", "x@example.com", "abc@c.us", "list@broadcast", "@g.us"])(
    "refuses %j",
    (input) => {
      expect(normalizeChatId(input)).toBeNull();
    },
  );
});

describe("chatOf / requireChat", () => {
  it("phone is an alias of chatId; chatId wins", () => {
    expect(chatOf({ phone: "5511999998888" })).toBe("5511999998888@c.us");
    expect(chatOf({ chatId: "5511999997777", phone: "5511999998888" })).toBe("5511999997777@c.us");
    expect(chatOf({})).toBeNull();
  });

  it("missing → validation_error with details.chatId 'informe o chatId'", () => {
    try {
      requireChat({});
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("validation_error");
      expect((err as ApiError).details).toEqual({ chatId: "informe o chatId" });
    }
  });

  it("not a chat id → validation_error on chatId", () => {
    expect(() => chatOf({ chatId: "nope" })).toThrow(ApiError);
  });
});

describe("Brazilian mobile numbers (spec 1 rule 2)", () => {
  it.each([
    ["5511988887777", "551188887777"],
    ["551188887777", "5511988887777"],
    ["5521966665555", "552166665555"],
  ])("%s ↔ %s", (typed, other) => {
    expect(isBrazilianMobile(typed)).toBe(true);
    expect(brazilianMobileAlternate(typed)).toBe(other);
    expect(brazilianMobileAlternate(other)).toBe(typed);
  });

  it.each(["551133334444", "15551234567", "5511988887", "55119888877776"])("%s has no other form", (d) => {
    expect(brazilianMobileAlternate(d)).toBeNull();
    expect(isBrazilianMobile(d)).toBe(false);
  });
});
