import type { Instance } from "@gw/contracts";
import { call } from "../api.ts";
import { formValues, h } from "../dom.ts";
import { act } from "../notify.ts";
import { type Session, saveSession } from "../session.ts";
import { field } from "../widgets.ts";

/**
 * Sign in: the admin token (every instance), or one instance's id and token (that instance).
 * The token is checked with a read before it is kept (in sessionStorage: see session.ts).
 */
export function renderSignIn(root: HTMLElement, done: (s: Session) => void): void {
  const token = h("input", {
    name: "token",
    type: "password",
    autocomplete: "off",
    required: true,
    "data-testid": "token",
  });
  const instanceId = h("input", {
    name: "instanceId",
    placeholder: "i…",
    autocomplete: "off",
    "data-testid": "instance-id",
  });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "sign-in" }, "Sign in");
  const form = h(
    "form",
    { class: "card signin" },
    h("h1", {}, "Gateway console"),
    h(
      "p",
      { class: "muted" },
      "Sign in with the admin token to see every instance, or with one instance's id and token.",
    ),
    field("Token", token),
    field("Instance id", instanceId, "Only with an instance token; leave empty for the admin token."),
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = formValues(form);
    void act(submit, async () => {
      const session: Session = v.instanceId
        ? { kind: "instance", instanceId: v.instanceId, token: v.token ?? "" }
        : { kind: "admin", token: v.token ?? "" };
      if (session.kind === "instance") {
        await call<{ instance: Instance }>(
          { kind: "instance", token: session.token },
          "GET",
          `/v1/instances/${session.instanceId}`,
        );
      } else {
        await call({ kind: "admin", token: session.token }, "GET", "/v1/admin/instances", { query: { limit: 1 } });
      }
      saveSession(session);
      done(session);
    });
  });
  root.replaceChildren(form);
  token.focus();
}
