import { describe, expect, it } from "vitest";
import { DOC_PATTERNS } from "../doc-patterns.ts";
import { groupIdSchema } from "./groups.ts";

describe("groupIdSchema: a group id in both forms", () => {
  it.each([
    ["120363012345678901@g.us", "120363012345678901@g.us"],
    ["120363012345678901", "120363012345678901@g.us"],
    [" 120363012345678901 ", "120363012345678901@g.us"],
    // Legacy groups (created before 2021): `<creator's number>-<creation timestamp>`.
    ["5511999999999-1600000000@g.us", "5511999999999-1600000000@g.us"],
    ["5511999999999-1600000000", "5511999999999-1600000000@g.us"],
  ])("%j → %s", (input, out) => {
    expect(groupIdSchema.parse(input)).toBe(out);
  });

  it.each([
    "",
    "nope",
    "123",
    "5511999999999@c.us",
    "123456789012345@lid",
    "abc@g.us",
    "5511999999999-@g.us",
    "-1600000000",
    "5511999999999-1600000000-1",
  ])("refuses %j", (input) => {
    expect(groupIdSchema.safeParse(input).success).toBe(false);
  });

  it("what the documented pattern admits is accepted, in both forms", () => {
    const pattern = new RegExp(DOC_PATTERNS.group);
    for (const id of [
      "120363012345678901",
      "120363012345678901@g.us",
      "5511999999999-1600000000",
      "5511999999999-1600000000@g.us",
    ]) {
      expect(pattern.test(id)).toBe(true);
      expect(groupIdSchema.safeParse(id).success).toBe(true);
    }
    expect(pattern.test("nope")).toBe(false);
  });
});
