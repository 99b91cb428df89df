import { capabilitiesMarkdown } from "./capabilities.ts";

process.stdout.write(capabilitiesMarkdown());
