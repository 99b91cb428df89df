import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Labels: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const labelsOps = defineOps({});

export const labelsCapabilities: Record<string, Capability> = {};
