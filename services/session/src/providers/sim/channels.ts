import type { SimAreaModule } from "./areas.ts";

/** Channels on simnet (filled by its issue). */
export const simChannels: SimAreaModule = () => ({});
