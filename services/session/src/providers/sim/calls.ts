import type { SimAreaModule } from "./areas.ts";

/** Calls on simnet (filled by its issue). */
export const simCalls: SimAreaModule = () => ({});
