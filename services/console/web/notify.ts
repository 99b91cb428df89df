import { ApiFailure } from "./api.ts";
import { type Child, fill, h } from "./dom.ts";

let area: HTMLElement | null = null;

/** The place notices and errors appear, above every screen. */
export function noticeArea(): HTMLElement {
  area ??= h("div", { class: "notices", role: "status", "aria-live": "polite" });
  return area;
}

/** An error as the operator reads it: its code and message always, then details and request id. */
export function describeError(err: unknown): Child[] {
  if (err instanceof ApiFailure) {
    const details = err.details
      ? Object.entries(err.details).map(([k, v]) => h("li", {}, h("code", {}, k), `: ${v}`))
      : [];
    return [
      h("strong", { class: "error-code", "data-testid": "error-code" }, err.code),
      " ",
      h("span", { class: "error-message" }, err.message),
      err.status ? h("span", { class: "muted" }, ` (HTTP ${err.status})`) : null,
      details.length ? h("ul", { class: "error-details" }, details) : null,
      err.requestId ? h("div", { class: "muted small" }, `request ${err.requestId}`) : null,
    ];
  }
  return [h("strong", { class: "error-code" }, "error"), " ", String((err as Error)?.message ?? err)];
}

function toast(kind: "error" | "notice", content: Child[], ms: number | null): void {
  const box = noticeArea();
  const close = h("button", { class: "link close", type: "button", "aria-label": "dismiss" }, "×");
  const item = h("div", { class: `toast ${kind}`, "data-testid": kind }, close, h("div", {}, content));
  close.addEventListener("click", () => item.remove());
  box.prepend(item);
  while (box.children.length > 5) box.lastElementChild?.remove();
  if (ms !== null) setTimeout(() => item.remove(), ms);
}

/** Shows an error until dismissed: an operator must be able to read and copy it. */
export const showError = (err: unknown) => toast("error", describeError(err), null);

export const showNotice = (...content: Child[]) => toast("notice", content, 6000);

/** A notice that stays until dismissed: a token or a secret shown once. */
export const showLasting = (...content: Child[]) => toast("notice", content, null);

/** Runs an operator action, showing its failure; the button is disabled while it runs. */
export async function act<T>(button: HTMLButtonElement | null, fn: () => Promise<T>): Promise<T | undefined> {
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    showError(err);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * An error box in place, for what refreshes on a timer: a failing refresh shows its error there
 * (replaced by the next one, gone on success) instead of a new notice every few seconds.
 */
export function inlineError(): { el: HTMLElement; show(err: unknown): void; clear(): void } {
  const el = h("div", { class: "inline-error", "data-testid": "inline-error" });
  return {
    el,
    show: (err) => fill(el, describeError(err)),
    clear: () => el.replaceChildren(),
  };
}
