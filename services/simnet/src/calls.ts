// Calls on the simulated network (filled by its issue).
import type { SimnetArea } from "./areas.ts";

export const callsArea: SimnetArea = { name: "calls" };
