// The browser code (web/) is outside the root TypeScript project, whose lib has no DOM: its own
// project (web/tsconfig.json) is checked here, so `make test` type-checks it like everything else.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const WEB = fileURLToPath(new URL("../web/", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("the console's browser code", () => {
  it("type-checks with the DOM's types (strict, like the rest)", { timeout: 90_000 }, () => {
    const tsc = join(ROOT, "node_modules/.bin/tsc");
    const run = () =>
      execFileSync(tsc, ["-p", join(WEB, "tsconfig.json"), "--noEmit"], { cwd: ROOT, encoding: "utf8" });
    expect(run).not.toThrow();
  });

  it("keeps tokens out of localStorage and builds no markup from strings", () => {
    for (const file of sources(WEB)) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(
        /\blocalStorage\s*[.[]|\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write/,
      );
    }
  });
});
