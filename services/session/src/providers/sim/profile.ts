import type { SimAreaModule } from "./areas.ts";

/** Profile on simnet (filled by its issue). */
export const simProfile: SimAreaModule = () => ({});
