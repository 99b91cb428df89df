import type { Delivery, Webhook } from "@gw/contracts";
import { call } from "../api.ts";
import { fill, formValues, h } from "../dom.ts";
import { act, inlineError, showLasting, showNotice } from "../notify.ts";
import { badge, button, confirmed, facts, field, section } from "../widgets.ts";
import { deliveriesPanel } from "./deliveries.ts";
import type { InstancePage, Tab } from "./page.ts";

/** The instance's webhooks: create, test, rotate the secret, reactivate, delete; their deliveries. */
export const renderWebhooks: Tab = (root, page) => {
  const base = `/v1/instances/${page.id}/webhooks`;
  const list = h("div", { "data-testid": "webhooks" }, h("p", { class: "muted" }, "Loading…"));
  const failure = inlineError();
  // The last test's outcome per webhook, kept across the list's redraws.
  const tests = new Map<string, Delivery>();

  async function load(): Promise<void> {
    try {
      const { data } = await call<{ data: Webhook[] }>(page.cred, "GET", base);
      failure.clear();
      fill(
        list,
        data.length
          ? data.map((w) => webhookCard(page, `${base}/${w.id}`, w, tests, load))
          : h("p", { class: "muted" }, "No webhook yet."),
      );
    } catch (err) {
      failure.show(err);
    }
  }

  const url = h("input", {
    name: "url",
    type: "url",
    required: true,
    placeholder: "https://…",
    "data-testid": "webhook-url",
  });
  const events = h("input", { name: "events", value: "*", "data-testid": "webhook-events" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "webhook-create" }, "Create");
  const form = h(
    "form",
    { class: "inline-form" },
    field("URL", url),
    field("Events", events, "Kinds separated by commas, or * for every kind."),
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = formValues(form);
    void act(submit, async () => {
      const kinds = (v.events || "*")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean);
      const created = await call<Webhook & { secret: string }>(page.cred, "POST", base, {
        json: { url: v.url, events: kinds },
      });
      showLasting("Webhook created. Its signing secret (shown once): ", h("code", {}, created.secret));
      form.reset();
      await load();
    });
  });

  root.replaceChildren(section("Webhooks", failure.el, list), section("Add a webhook", form));
  void load();
  return undefined;
};

/** What a test delivery came to, as one line. */
function testLine(d: Delivery): HTMLElement {
  const http = d.httpStatus ? ` HTTP ${d.httpStatus}` : "";
  return h(
    "p",
    { "data-testid": "webhook-test-result" },
    "Last test: ",
    badge(d.status),
    http,
    d.durationMs !== null ? ` in ${d.durationMs} ms` : "",
    d.error && d.error !== http.trim() ? ` — ${d.error}` : "",
  );
}

function webhookCard(
  page: InstancePage,
  path: string,
  w: Webhook,
  tests: Map<string, Delivery>,
  reloadAll: () => Promise<void>,
): HTMLElement {
  // A delivery changes the webhook's response times and failing state: the whole card is read again.
  const deliveries = deliveriesPanel(page.cred, path, reloadAll);
  const last = tests.get(w.id);
  const testResult = h("div", {}, last ? testLine(last) : null);
  const run = (fn: () => Promise<void>) => (ev: Event) => act(ev.currentTarget as HTMLButtonElement, fn);
  const card = h(
    "div",
    { class: "webhook", "data-testid": "webhook", "data-webhook-id": w.id },
    h("div", { class: "status-line" }, badge(w.active ? "active" : "inactive"), h("code", {}, w.url)),
    facts([
      ["Id", h("code", {}, w.id)],
      ["Events", w.events.join(", ")],
      [
        "Response time (24 h)",
        w.responseTime.medianMs === null ? "" : `median ${w.responseTime.medianMs} ms · p95 ${w.responseTime.p95Ms} ms`,
      ],
      ["Failing since", w.failingSince ? new Date(w.failingSince).toLocaleString() : ""],
      [
        "Deactivated",
        w.deactivatedAt ? `${new Date(w.deactivatedAt).toLocaleString()}: ${w.deactivationReason ?? ""}` : "",
      ],
    ]),
    h(
      "div",
      { class: "actions" },
      button(
        "Send a test",
        run(async () => {
          tests.set(w.id, await call<Delivery>(page.cred, "POST", `${path}/test`));
          await reloadAll();
        }),
        { "data-testid": "webhook-test" },
      ),
      button(
        "Rotate secret",
        run(async () => {
          if (!confirmed("Rotate the secret? Deliveries from now on are signed with the new one.")) return;
          const out = await call<{ secret: string }>(page.cred, "POST", `${path}/rotate-secret`);
          showLasting("New signing secret (shown once): ", h("code", { "data-testid": "webhook-secret" }, out.secret));
        }),
        { "data-testid": "webhook-rotate" },
      ),
      w.active
        ? null
        : button(
            "Reactivate",
            run(async () => {
              await call(page.cred, "PATCH", path, { json: { active: true } });
              showNotice("Webhook reactivated");
              await reloadAll();
            }),
          ),
      button("Refresh deliveries", run(deliveries.reload)),
      button(
        "Delete",
        run(async () => {
          if (!confirmed(`Delete the webhook to ${w.url}?`)) return;
          await call(page.cred, "DELETE", path);
          await reloadAll();
        }),
        { class: "danger" },
      ),
    ),
    testResult,
    h("h3", {}, "Deliveries"),
    deliveries.el,
  );
  void deliveries.reload();
  return card;
}
