import { readFileSync, writeFileSync } from "node:fs";
import { capabilitiesMarkdown, withOfficialCapabilities } from "./capabilities.ts";

// `pnpm --silent capabilities > docs/capabilities.md`: the whole table.
// `pnpm --silent capabilities --write-official`: the official column's block in docs/official.md, in place.
if (process.argv.includes("--write-official")) {
  const path = new URL("../../../../docs/official.md", import.meta.url);
  writeFileSync(path, withOfficialCapabilities(readFileSync(path, "utf8")));
} else {
  process.stdout.write(capabilitiesMarkdown());
}
