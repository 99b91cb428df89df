import { describe, expect, it } from "vitest";
import { DEFAULT_TEMPORAL_UI_URL, temporalUiUrl } from "./settings.ts";

describe("TEMPORAL_UI_URL", () => {
  it("defaults to the local dev server's UI", () => {
    expect(temporalUiUrl({})).toBe(DEFAULT_TEMPORAL_UI_URL);
    expect(temporalUiUrl({ TEMPORAL_UI_URL: " " })).toBe(DEFAULT_TEMPORAL_UI_URL);
  });

  it("an http(s) URL, without its trailing slash (links append paths)", () => {
    expect(temporalUiUrl({ TEMPORAL_UI_URL: "https://temporal.example.com/" })).toBe("https://temporal.example.com");
  });

  it("anything else falls back rather than stopping the gateway: it only makes a link", () => {
    expect(temporalUiUrl({ TEMPORAL_UI_URL: "javascript:alert(1)" })).toBe(DEFAULT_TEMPORAL_UI_URL);
    expect(temporalUiUrl({ TEMPORAL_UI_URL: "not a url" })).toBe(DEFAULT_TEMPORAL_UI_URL);
  });
});
