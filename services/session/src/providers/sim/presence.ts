import type { SimAreaModule } from "./areas.ts";

/** Presence on simnet (filled by its issue). */
export const simPresence: SimAreaModule = () => ({});
