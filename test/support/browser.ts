// A real browser for the console's tests: Debian's chromium (scripts/setup.sh installs it),
// driven by playwright-core. No browser is downloaded: nothing outside the package registries
// is reachable, so playwright's own builds are never used.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no browser at ${CHROMIUM_PATH}: run scripts/setup.sh (it installs Debian's chromium), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

/**
 * What the page reports that a test must not let pass silently: uncaught errors, console
 * errors and Content-Security-Policy violations (the browser logs those as console errors).
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // A failed API call is logged by the browser as a resource error; the console shows those itself.
    if (msg.type() === "error" && !/Failed to load resource/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  return problems;
}

/**
 * Screenshots of the console's screens: into docs/console/ when CONSOLE_SCREENSHOTS=docs (to
 * refresh the ones docs/console.md shows), else into .local/ so a test run leaves the tree as it was.
 */
export function screenshotDir(root: string): string {
  const dir =
    process.env.CONSOLE_SCREENSHOTS === "docs" ? join(root, "docs/console") : join(root, ".local/console-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The console's page as tests drive it: elements by `data-testid`, waits on their text, screenshots. */
export function consoleDriver(page: Page, shots: string) {
  const el = (testid: string) => page.locator(`[data-testid="${testid}"]`);
  return {
    el,
    /** Waits until an element with the test id shows the text. */
    showing: (testid: string, text: string | RegExp, timeout = 15_000) =>
      el(testid).filter({ hasText: text }).first().waitFor({ timeout }),
    /** A screenshot of the screen as it is, without the notices of the steps before (errors stay). */
    async shot(name: string): Promise<void> {
      // (Page-side code as a string: the test project's types have no DOM.)
      await page.evaluate("for (const t of document.querySelectorAll('.toast.notice')) t.remove()");
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    },
    /**
     * Polls a condition read through locators, from the test's side: the page's policy forbids
     * the string evaluation that page.waitForFunction would need here.
     */
    async until(what: string, holds: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (!(await holds())) {
        if (Date.now() > end) throw new Error(`the console never showed: ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** Signs in: the admin token, or an instance's id and token. */
    async signIn(token: string, instanceId = ""): Promise<void> {
      await el("token").fill(token);
      await el("instance-id").fill(instanceId);
      await el("sign-in").click();
      await el("signed-in-as").waitFor();
    },
  };
}

export type ConsoleDriver = ReturnType<typeof consoleDriver>;
