import { describe, expect, it } from "vitest";
import { applyNumberRules, DEFAULT_NUMBER_RULES, type NumberRules } from "./apps.ts";

const rules = (r: Partial<NumberRules>): NumberRules => ({ ...DEFAULT_NUMBER_RULES, ...r });

describe("applyNumberRules", () => {
  it("without apps a number is left as typed", () => {
    for (const n of ["5531962220002", "031962220002", "525512345678"]) {
      expect(applyNumberRules(n, DEFAULT_NUMBER_RULES)).toBe(n);
    }
  });

  it("phone-numbers: the default country code for national numbers, trunk 0 dropped, 00 international", () => {
    const br = rules({ defaultCountryCode: "55" });
    expect(applyNumberRules("31962220002", br)).toBe("5531962220002");
    expect(applyNumberRules("031962220002", br)).toBe("5531962220002");
    expect(applyNumberRules("5531962220002", br)).toBe("5531962220002"); // already international
    expect(applyNumberRules("0014155550100", br)).toBe("14155550100");
    expect(applyNumberRules("14155550100", rules({ defaultCountryCode: "55", nationalMaxDigits: 10 }))).toBe(
      "14155550100",
    );
  });

  it("mexico: 52 + ten digits gains the network's 1 (add) or loses it (remove); idempotent", () => {
    expect(applyNumberRules("525512345678", rules({ mexico: "add" }))).toBe("5215512345678");
    expect(applyNumberRules("5215512345678", rules({ mexico: "add" }))).toBe("5215512345678");
    expect(applyNumberRules("5215512345678", rules({ mexico: "remove" }))).toBe("525512345678");
  });

  it("argentina: 54 + area + number gains the 9; a typed 15 after the area code is dropped", () => {
    const ar = rules({ argentina: true });
    expect(applyNumberRules("541123456789", ar)).toBe("5491123456789");
    expect(applyNumberRules("54111523456789", ar)).toBe("5491123456789");
    expect(applyNumberRules("5491123456789", ar)).toBe("5491123456789");
    expect(applyNumberRules("54351155123456", ar)).toBe("5493515123456"); // area 351, 15 typed
    expect(applyNumberRules("543515123456", ar)).toBe("5493515123456");
  });

  it("brazil: the ninth digit of mobiles forced in or out; landlines untouched", () => {
    expect(applyNumberRules("553162220002", rules({ brazil: "add" }))).toBe("5531962220002");
    expect(applyNumberRules("5531962220002", rules({ brazil: "remove" }))).toBe("553162220002");
    expect(applyNumberRules("553132220002", rules({ brazil: "add" }))).toBe("553132220002"); // landline
  });
});
