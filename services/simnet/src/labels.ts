// Labels on the simulated network (filled by its issue).
import type { SimnetArea } from "./areas.ts";

export const labelsArea: SimnetArea = { name: "labels" };
