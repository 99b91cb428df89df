import { eventKinds } from "@gw/contracts";
import { describe, expect, it } from "vitest";
import { EVENT_KINDS } from "../web/event-kinds.ts";

describe("the console's copy of the event kinds", () => {
  it("is contracts' list: a kind missing there would never reach the live log", () => {
    expect([...EVENT_KINDS].sort()).toEqual([...eventKinds].sort());
  });
});
