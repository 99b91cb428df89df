import type { SimAreaModule } from "./areas.ts";

/** Labels on simnet (filled by its issue). */
export const simLabels: SimAreaModule = () => ({});
