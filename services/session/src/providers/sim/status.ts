import type { SimAreaModule } from "./areas.ts";

/** Status on simnet (filled by its issue). */
export const simStatus: SimAreaModule = () => ({});
