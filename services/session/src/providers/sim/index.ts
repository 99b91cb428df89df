/** The sim provider's entry (role.ts): its factory; the session's parts are in session/. */
export { createSimProvider } from "./session/index.ts";
