import "./style.css";
import type { Cleanup, Ctx, Settings } from "./context.ts";
import { h } from "./dom.ts";
import { noticeArea, showError } from "./notify.ts";
import { loadSession, type Session, signOut } from "./session.ts";
import { renderAllEvents } from "./views/all-events.ts";
import { type InstanceScreen, openInstance } from "./views/instance.ts";
import { renderInstances } from "./views/instances.ts";
import { renderSignIn } from "./views/signin.ts";

const app = document.getElementById("app")!;
const main = h("main", {});
let cleanup: Cleanup | undefined;
let screen: InstanceScreen | undefined;

function leave(): void {
  cleanup?.();
  cleanup = undefined;
  screen?.close();
  screen = undefined;
}

/** The hash routes: `#/` instances (admin), `#/events` every instance's log, `#/i/{id}/{tab}` one instance. */
function route(ctx: Ctx): void {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "i" && parts[1]) {
    const tab = parts[2] ?? "overview";
    // Another tab of the same instance: the screen (and its live events) stays.
    if (screen?.id === parts[1]) {
      screen.show(tab);
      return;
    }
    leave();
    screen = openInstance(main, ctx, parts[1], tab);
    return;
  }
  leave();
  if (parts[0] === "events") cleanup = renderAllEvents(main, ctx);
  else if (ctx.session.kind === "instance") ctx.go(`#/i/${ctx.session.instanceId}`);
  else cleanup = renderInstances(main, ctx);
}

function header(session: Session): HTMLElement {
  const out = h("button", { type: "button", class: "link", "data-testid": "sign-out" }, "Sign out");
  out.addEventListener("click", () => {
    leave();
    signOut();
    location.hash = "";
    start();
  });
  return h(
    "header",
    {},
    h("a", { href: "#/", class: "brand" }, "Gateway console"),
    session.kind === "admin"
      ? h(
          "nav",
          {},
          h("a", { href: "#/", "data-testid": "nav-instances" }, "Instances"),
          h("a", { href: "#/events", "data-testid": "nav-events" }, "Live events"),
        )
      : h("nav", {}, h("a", { href: `#/i/${session.instanceId}` }, "Instance")),
    h(
      "span",
      { class: "who", "data-testid": "signed-in-as" },
      session.kind === "admin" ? "admin" : `instance ${session.instanceId}`,
    ),
    out,
  );
}

let settings: Settings = { temporalUiUrl: "http://127.0.0.1:8233", temporalNamespace: "default" };

function start(): void {
  const session = loadSession();
  if (!session) {
    window.onhashchange = null;
    app.replaceChildren(noticeArea(), main);
    renderSignIn(main, () => start());
    return;
  }
  const ctx: Ctx = {
    session,
    settings,
    go: (r) => {
      if (location.hash === r) route(ctx);
      else location.hash = r;
    },
  };
  app.replaceChildren(header(session), noticeArea(), main);
  window.onhashchange = () => route(ctx);
  route(ctx);
}

fetch("/console/config.json", { cache: "no-store" })
  .then((r) => (r.ok ? (r.json() as Promise<Settings>) : settings))
  .then((s) => {
    settings = s;
  })
  .catch(showError)
  .finally(start);
