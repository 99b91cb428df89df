import type { EventEnvelope } from "@gw/contracts";
import { clock, fill, h } from "../dom.ts";
import type { Live } from "../live.ts";
import { jsonBlock } from "../widgets.ts";

const KEEP = 500;

/** A line's gist: what an operator scans for, the whole event is one click away. */
function gist(e: EventEnvelope): string {
  const p = e.payload as Record<string, unknown>;
  const s = (k: string) => (typeof p[k] === "string" || typeof p[k] === "number" ? String(p[k]) : "");
  switch (e.event) {
    case "session.status":
      return `${s("previousStatus") || "—"} → ${s("status")}${p.reason ? ` (${s("reason")})` : ""}`;
    case "message":
    case "message.any":
      return `${p.fromMe ? "to" : "from"} ${s("chatId") || s("from")}: ${s("text") || s("type")}`;
    case "message.ack":
      return `${s("id")} ${s("status")}`;
    case "queue.sent":
    case "queue.failed":
      return `${s("id")} ${s("status")}${p.error ? `: ${s("error")}` : ""}`;
    default:
      return s("chatId") || s("status") || "";
  }
}

/**
 * The live event log: newest first, filtered by kind and by any text in the event; a row opens
 * the event's JSON. Kept to the last 500 events (a long-open tab must not grow without bound).
 */
export function eventLog(live: Live, opts: { showInstance: boolean }): { el: HTMLElement; stop: () => void } {
  const events: EventEnvelope[] = [];
  const kinds = new Set<string>();
  const kindSelect = h("select", { "data-testid": "event-kind" }, h("option", { value: "" }, "every kind"));
  const text = h("input", {
    type: "search",
    placeholder: "filter: any text in the event",
    "data-testid": "event-filter",
  });
  const rows = h("tbody", { "data-testid": "event-rows" });
  const detail = h("div", { class: "event-detail" }, h("p", { class: "muted" }, "Pick an event to see its JSON."));
  const count = h("span", { class: "muted small" });
  let paused = false;
  const pause = h("button", { type: "button" }, "Pause");
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    if (!paused) draw();
  });

  const matches = (e: EventEnvelope) => {
    if (kindSelect.value && e.event !== kindSelect.value) return false;
    const q = text.value.trim().toLowerCase();
    return !q || JSON.stringify(e).toLowerCase().includes(q);
  };

  function row(e: EventEnvelope): HTMLElement {
    const tr = h(
      "tr",
      { class: "event-row", "data-testid": "event-row", "data-event": e.event, tabindex: 0 },
      h("td", { class: "nowrap" }, clock(e.timestamp)),
      opts.showInstance ? h("td", {}, h("code", {}, e.instanceId)) : null,
      h("td", {}, h("span", { class: "kind" }, e.event)),
      h("td", { class: "gist" }, gist(e)),
    );
    const open = () => {
      for (const r of rows.querySelectorAll(".selected")) r.classList.remove("selected");
      tr.classList.add("selected");
      fill(detail, h("h3", {}, `${e.event} · ${e.id}`), jsonBlock(e, "event-json"));
    };
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") open();
    });
    return tr;
  }

  function draw(): void {
    const shown = events.filter(matches);
    rows.replaceChildren(...shown.map(row));
    count.textContent = `${shown.length} of ${events.length} events`;
  }

  const off = live.subscribe((e) => {
    events.unshift(e);
    if (events.length > KEEP) events.length = KEEP;
    if (!kinds.has(e.event)) {
      kinds.add(e.event);
      const sorted = [...kinds].sort();
      const keep = kindSelect.value;
      kindSelect.replaceChildren(
        h("option", { value: "" }, "every kind"),
        ...sorted.map((k) => h("option", { value: k }, k)),
      );
      kindSelect.value = keep;
    }
    if (paused) return;
    if (matches(e)) rows.prepend(row(e));
    while (rows.children.length > KEEP) rows.lastElementChild?.remove();
    count.textContent = `${rows.children.length} of ${events.length} events`;
  }, true);
  kindSelect.addEventListener("change", draw);
  text.addEventListener("input", draw);

  const el = h(
    "div",
    { class: "event-log" },
    h("div", { class: "toolbar" }, kindSelect, text, pause, count),
    h(
      "div",
      { class: "split" },
      h(
        "div",
        { class: "scroll" },
        h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, "Time"),
              opts.showInstance ? h("th", {}, "Instance") : null,
              h("th", {}, "Event"),
              h("th", {}, ""),
            ),
          ),
          rows,
        ),
      ),
      detail,
    ),
  );
  draw();
  return { el, stop: () => off() };
}
