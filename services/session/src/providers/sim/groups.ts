import type { SimAreaModule } from "./areas.ts";

/** Groups on simnet (filled by its issue). */
export const simGroups: SimAreaModule = () => ({});
