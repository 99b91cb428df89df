import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Profile: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const profileOps = defineOps({});

export const profileCapabilities: Record<string, Capability> = {};
