import type { WAMessageKey } from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { brazilianAlternative, formatMessageId, parseMessageId, toChatId, toJid } from "./jids.ts";

/** Chat ids and our message ids as Baileys' JIDs and keys, and back (jids.ts). */

const GROUP = "120363012345678901@g.us";

describe("chat ids and message ids", () => {
  it("chat ids become Baileys JIDs and back", () => {
    expect(toJid("5511988887777@c.us")).toBe("5511988887777@s.whatsapp.net");
    expect(toJid("123456789012345@lid")).toBe("123456789012345@lid");
    expect(toJid(GROUP)).toBe(GROUP);
    expect(toJid("551199999999-1600000000@g.us")).toBe("551199999999-1600000000@g.us");
    expect(toJid("120363123456789012@newsletter")).toBe("120363123456789012@newsletter");
    for (const bad of ["5511988887777", "abc@c.us", "status@broadcast", "", "5511@c.us"]) expect(toJid(bad)).toBeNull();
    expect(toChatId("5511988887777:3@s.whatsapp.net")).toBe("5511988887777@c.us");
    expect(toChatId("123456789012345:7@lid")).toBe("123456789012345@lid");
    expect(toChatId(GROUP)).toBe(GROUP);
  });

  it("our id format round-trips for 1:1, LID and group messages with participant", () => {
    const cases: [string, WAMessageKey][] = [
      [
        "false_5511988887777@c.us_3A1B2C3D4E5F60718293",
        { remoteJid: "5511988887777@s.whatsapp.net", fromMe: false, id: "3A1B2C3D4E5F60718293" },
      ],
      [
        "true_5511988887777@c.us_3EB01856367ED49704407F",
        { remoteJid: "5511988887777@s.whatsapp.net", fromMe: true, id: "3EB01856367ED49704407F" },
      ],
      ["true_123456789012345@lid_ABCDEF0123", { remoteJid: "123456789012345@lid", fromMe: true, id: "ABCDEF0123" }],
      [
        `false_${GROUP}_0A1B2C3D4E5F60718293A4B5C6D7E8F9_5511977776666@c.us`,
        {
          remoteJid: GROUP,
          fromMe: false,
          id: "0A1B2C3D4E5F60718293A4B5C6D7E8F9",
          participant: "5511977776666@s.whatsapp.net",
        },
      ],
      [
        `false_${GROUP}_3A99_222233334444555@lid`,
        { remoteJid: GROUP, fromMe: false, id: "3A99", participant: "222233334444555@lid" },
      ],
    ];
    for (const [id, key] of cases) {
      expect(parseMessageId(id)).toEqual(key);
      expect(formatMessageId(key)).toBe(id);
    }
    for (const bad of ["3EB0ABC", "maybe_5511988887777@c.us_ABC", "true_foo_ABC", "true_5511988887777@c.us_A-B"]) {
      expect(parseMessageId(bad)).toBeUndefined();
    }
  });

  it("Brazilian ninth digit: the other form of mobile numbers only", () => {
    expect(brazilianAlternative("5511988887777")).toBe("551188887777");
    expect(brazilianAlternative("551188887777")).toBe("5511988887777");
    expect(brazilianAlternative("551133334444")).toBeNull(); // landline
    expect(brazilianAlternative("5511933334444")).toBeNull(); // 9 + landline-like: no old form
    expect(brazilianAlternative("14155550100")).toBeNull();
    expect(brazilianAlternative("5511")).toBeNull();
  });
});
