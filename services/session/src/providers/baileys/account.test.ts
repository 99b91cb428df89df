import { cappingSchema, timelockSchema } from "@gw/contracts";
import {
  type NewChatMessageCapInfo,
  NewChatMessageCappingMVStatusType,
  NewChatMessageCappingOTEStatusType,
  NewChatMessageCappingStatusType,
  ReachoutTimelockEnforcementType,
} from "@whiskeysockets/baileys";
import { describe, expect, it } from "vitest";
import { accountFromMe, isPaired, mapCapping, mapTimelock, normalizeLid, phoneFromJid } from "./account.ts";

/** The connected account, its pairing, capping and timelock as Baileys gives them and the spec names them (account.ts). */

describe("account mapping", () => {
  it("phone is the digits of me.id before ':' / '@'; lid is normalized", () => {
    expect(phoneFromJid("5511999999999:12@s.whatsapp.net")).toBe("5511999999999");
    expect(phoneFromJid("5511999999999@s.whatsapp.net")).toBe("5511999999999");
    expect(phoneFromJid(undefined)).toBe("");
    expect(normalizeLid("123456789:12@lid")).toBe("123456789@lid");
    expect(normalizeLid(undefined)).toBe("");
    expect(accountFromMe({ id: "5511999999999:12@s.whatsapp.net", lid: "123456789:12@lid", name: "Ana" })).toEqual({
      phone: "5511999999999",
      lid: "123456789@lid",
      pushName: "Ana",
    });
    // requestPairingCode's placeholder name is not a push name
    expect(accountFromMe({ id: "5511999999999@s.whatsapp.net", name: "~" }).pushName).toBe("");
  });

  it("paired means pair-success happened, not just a pairing-code request", () => {
    const base = { registered: false } as Parameters<typeof isPaired>[0];
    expect(isPaired({ ...base, me: { id: "5511@s.whatsapp.net", name: "~" } })).toBe(false);
    expect(isPaired({ ...base, me: { id: "5511:1@s.whatsapp.net" }, account: { details: new Uint8Array(1) } })).toBe(
      true,
    );
  });

  it("capping (spec 2.3) from fetchNewChatMessageCap's shape", () => {
    const info: NewChatMessageCapInfo = {
      total_quota: 250,
      used_quota: 17,
      cycle_start_timestamp: "1763000000",
      cycle_end_timestamp: "1765592000000",
      capping_status: NewChatMessageCappingStatusType.FIRST_WARNING,
      mv_status: NewChatMessageCappingMVStatusType.ACTIVE,
      ote_status: NewChatMessageCappingOTEStatusType.ELIGIBLE,
    };
    const out = mapCapping(info);
    expect(out).toEqual({
      cappingStatus: "FIRST_WARNING",
      cycleStart: 1763000000,
      cycleEnd: 1765592000,
      mvStatus: "ACTIVE",
      oteStatus: "ELIGIBLE",
      totalQuota: 250,
      usedQuota: 17,
    });
    expect(cappingSchema.parse(out)).toEqual(out);
    expect(cappingSchema.parse(mapCapping({}))).toEqual({
      cappingStatus: "NONE",
      cycleStart: 0,
      cycleEnd: 0,
      mvStatus: "NOT_ELIGIBLE",
      oteStatus: "NOT_ELIGIBLE",
      totalQuota: 0,
      usedQuota: 0,
    });
  });

  it("timelock (spec 2.4) from fetchAccountReachoutTimelock's shape", () => {
    const out = mapTimelock({
      isActive: true,
      timeEnforcementEnds: new Date(1_765_000_000_000),
      enforcementType: ReachoutTimelockEnforcementType.BIZ_QUALITY,
    });
    expect(out).toEqual({ enforcementType: "BIZ_QUALITY", isActive: true, timeEnforcementEnds: 1_765_000_000 });
    expect(timelockSchema.parse(out)).toEqual(out);
    expect(mapTimelock({ isActive: false, enforcementType: ReachoutTimelockEnforcementType.DEFAULT })).toEqual({
      enforcementType: "DEFAULT",
      isActive: false,
      timeEnforcementEnds: 0,
    });
  });
});
