#!/usr/bin/env node
// pnpm stack up|down|status — see stack-lib.mjs for what it installs and why.
import { down, status, up } from "./stack-lib.mjs";

const cmd = process.argv[2] ?? "status";
try {
  if (cmd === "up") console.log(JSON.stringify(await up(), null, 2));
  else if (cmd === "down") await down();
  else if (cmd === "status") console.log(JSON.stringify(await status(), null, 2));
  else {
    console.error("usage: pnpm stack up|down|status");
    process.exit(2);
  }
} catch (err) {
  console.error(`[stack] ${err.message}`);
  process.exit(1);
}
