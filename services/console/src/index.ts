export { buildConsoleAssets, type ConsoleAssets } from "./bundle.ts";
export { CONSOLE_CSP } from "./page.ts";
export { registerConsole } from "./serve.ts";
export type { ConsoleSettings } from "./settings.ts";
