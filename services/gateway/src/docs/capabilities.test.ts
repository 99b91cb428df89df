// docs/official.md carries the official column of the capability table as generated.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { officialCapabilitiesMarkdown, withOfficialCapabilities } from "./capabilities.ts";

describe("docs/official.md", () => {
  it("has the official column of the capability table as generated (pnpm --silent capabilities --write-official)", async () => {
    const doc = await readFile(new URL("../../../../docs/official.md", import.meta.url), "utf8");
    expect(doc).toContain(officialCapabilitiesMarkdown());
    expect(withOfficialCapabilities(doc)).toBe(doc);
  });

  it("lists what the kind serves with its notes, and the 501s of what it lacks", () => {
    const block = officialCapabilitiesMarkdown();
    expect(block).toContain("| `POST /messages/sticker` | WEBP 512x512, up to 100 KB (500 KB animated). |");
    expect(block).toContain("| `GET /templates` | official-only |");
    expect(block).toContain("| `POST /queue/pause` | as on standard instances |");
    expect(block).toMatch(/Answer `501 not_supported_by_provider`: .*`GET \/qr-code`/);
    expect(block).not.toContain("| `GET /qr-code`");
  });
});
