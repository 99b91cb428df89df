import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "services/*/src/**/*.test.ts", "workflows/src/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel; each isolates its Redis keys under its own prefix.
    pool: "forks",
    maxWorkers: 2,
  },
});
