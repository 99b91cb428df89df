import type { Delivery } from "@gw/contracts";
import { type Credential, call } from "../api.ts";
import { clock, fill, h } from "../dom.ts";
import { act, inlineError, showNotice } from "../notify.ts";
import { badge, button, table } from "../widgets.ts";

/** One webhook's deliveries (newest first, 7 days): status, HTTP answer, response time; retry one. */
export function deliveriesPanel(
  cred: Credential,
  path: string,
  changed: () => Promise<void>,
): { el: HTMLElement; reload: () => Promise<void> } {
  const body = h("div", { "data-testid": "deliveries" }, h("p", { class: "muted" }, "Loading…"));
  const failure = inlineError();

  const retry = (d: Delivery) => (ev: Event) =>
    act(ev.currentTarget as HTMLButtonElement, async () => {
      const again = await call<Delivery>(cred, "POST", `${path}/deliveries/${d.id}/retry`);
      showNotice(`Resent as ${again.id}: ${again.status}${again.httpStatus ? ` (HTTP ${again.httpStatus})` : ""}`);
      await changed();
    });

  async function reload(): Promise<void> {
    try {
      const page = await call<{ data: Delivery[] }>(cred, "GET", `${path}/deliveries`, { query: { limit: 50 } });
      failure.clear();
      const rows = page.data.map((d) => [
        d.lastAttemptAt ? clock(Date.parse(d.lastAttemptAt)) : clock(Date.parse(d.createdAt)),
        h("span", { class: "kind" }, d.event),
        badge(d.status, "delivery-status"),
        d.httpStatus === null ? "—" : String(d.httpStatus),
        d.durationMs === null ? "—" : `${d.durationMs} ms`,
        `${d.attempt}${d.manual ? " (manual)" : ""}`,
        d.error ?? "",
        button("Retry", retry(d), { class: "small", "data-testid": "retry-delivery" }),
      ]);
      fill(
        body,
        table(["Time", "Event", "Status", "HTTP", "Response time", "Attempt", "Error", ""], rows, {
          empty: "No delivery in the last 7 days.",
        }),
      );
    } catch (err) {
      failure.show(err);
    }
  }

  return { el: h("div", { class: "deliveries" }, failure.el, body), reload };
}
