import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Status: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const statusOps = defineOps({});

export const statusCapabilities: Record<string, Capability> = {};
