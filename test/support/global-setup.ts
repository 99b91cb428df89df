// Starts the local stack (Redis Stack + Temporal dev server) once for the whole run, or reuses
// one that is already up (`pnpm stack up`). It is left running: the next run reuses it.
import type { TestProject } from "vitest/node";
import { up } from "../../scripts/stack-lib.mjs";

export default async function setup(project: TestProject) {
  const stack = await up({ quiet: true });
  project.provide("redisUrl", stack.redisUrl);
  project.provide("temporalAddress", stack.temporalAddress);
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    temporalAddress: string;
  }
}
