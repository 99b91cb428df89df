import { describe, expect, it } from "vitest";
import { nowSeconds, secondsOf, unixSeconds } from "./seconds.ts";

/** The shared Unix-seconds helpers (seconds.ts) that inbound, outbound, the account and the areas use. */

describe("Unix seconds", () => {
  it("now: whole seconds of the clock", () => {
    const before = Math.floor(Date.now() / 1000);
    const now = nowSeconds();
    expect(Number.isInteger(now)).toBe(true);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it("secondsOf: numbers, protobuf Longs and numeric strings; null when absent, zero or not a number", () => {
    expect(secondsOf(1_790_000_000)).toBe(1_790_000_000);
    expect(secondsOf(1_790_000_000.9)).toBe(1_790_000_000);
    // A protobuf Long: its decimal string (receipt and message timestamps)
    expect(secondsOf({ low: 1_790_000_000, high: 0, unsigned: true, toString: () => "1790000000" })).toBe(
      1_790_000_000,
    );
    expect(secondsOf("1790000000")).toBe(1_790_000_000);
    for (const none of [null, undefined, 0, -5, Number.NaN, "", "abc", {}]) expect(secondsOf(none)).toBeNull();
  });

  it("unixSeconds: seconds as they are, milliseconds (past 10¹²) divided; both floored", () => {
    expect(unixSeconds(1_800_000_000)).toBe(1_800_000_000);
    expect(unixSeconds(1_800_003_600_000)).toBe(1_800_003_600);
    expect(unixSeconds(1_800_003_600_999)).toBe(1_800_003_600);
    expect(unixSeconds(20.7)).toBe(20);
  });
});
