import type { BaileysAreaModule } from "./areas.ts";

/** Labels on the real network through Baileys (filled by its issue). */
export const baileysLabels: BaileysAreaModule = () => ({});
