import { type Child, h } from "./dom.ts";

/** A connection, billing or delivery status as a coloured label (the colour is by class, in style.css). */
export const badge = (value: string, testid?: string) =>
  h("span", { class: `badge badge-${value.toLowerCase()}`, "data-testid": testid }, value);

export function table(head: string[], rows: Child[][], opts: { testid?: string; empty?: string } = {}): HTMLElement {
  if (rows.length === 0) return h("p", { class: "muted", "data-testid": opts.testid }, opts.empty ?? "Nothing yet.");
  return h(
    "table",
    { "data-testid": opts.testid },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        head.map((c) => h("th", {}, c)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          {},
          r.map((c) => h("td", {}, c)),
        ),
      ),
    ),
  );
}

export const section = (title: string, ...children: Child[]) =>
  h("section", { class: "card" }, h("h2", {}, title), children);

/** A labelled input. */
export function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  return h(
    "label",
    { class: "field" },
    h("span", {}, label),
    input,
    hint ? h("small", { class: "muted" }, hint) : null,
  );
}

export const button = (label: string, onclick: (ev: Event) => void, attrs: Record<string, string> = {}) =>
  h("button", { type: "button", ...attrs, onclick }, label);

/** Definition list of facts: [term, value] pairs. */
export const facts = (pairs: [string, Child][]) =>
  h(
    "dl",
    { class: "facts" },
    pairs.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v === "" || v === null || v === undefined ? "—" : v)]),
  );

/** JSON, pretty and as text (never as markup). */
export const jsonBlock = (value: unknown, testid?: string) =>
  h("pre", { class: "json", "data-testid": testid }, JSON.stringify(value, null, 2));

/** Asks before something that cannot be undone. */
export const confirmed = (what: string) => window.confirm(what);
