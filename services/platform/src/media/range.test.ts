import { describe, expect, it } from "vitest";
import { parseRange } from "./range.ts";

describe("parseRange", () => {
  it("reads the three forms, the end clamped to the file", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=90-", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange("bytes=-10", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange("bytes=50-1000", 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange("bytes=-1000", 100)).toEqual({ start: 0, end: 99 });
  });

  it("answers the whole file for no header, other units, malformed and multiple ranges", () => {
    for (const h of [undefined, "", "items=0-1", "bytes=a-b", "bytes=-", "bytes=9-3", "bytes=0-1,5-6"]) {
      expect(parseRange(h, 100)).toBeNull();
    }
  });

  it("a range past the end, or an empty suffix, is unsatisfiable", () => {
    expect(parseRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=200-300", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=-0", 100)).toBe("unsatisfiable");
  });
});
