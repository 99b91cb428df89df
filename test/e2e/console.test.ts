// The operator console (issue 25 §2) in a real browser (Debian's chromium via playwright-core)
// against a real cluster on simnet: sign in, create an instance, pair it with a pairing code and
// watch it turn WORKING with no reload, send a message and see its event arrive in the live log,
// the queue's pause / cancel / resume, and a webhook whose failed delivery is retried.
// Screenshots of each screen: test/support/browser.ts (CONSOLE_SCREENSHOTS=docs refreshes docs/console/).
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleDriver, consoleDriver, launchBrowser, pageProblems, screenshotDir } from "../support/browser.ts";
import { type Cluster, startCluster } from "../support/cluster.ts";
import { ADMIN_TOKEN } from "../support/gateway.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PHONE = `55119${String(Date.now()).slice(-8)}`;
const CONTACT = `55218${String(Date.now()).slice(-8)}`;

let c: Cluster;
let browser: Browser;
let page: Page;
let problems: string[];
let receiver: Receiver;
let instanceId = "";
let instanceToken = "";
const shots = screenshotDir(ROOT);

let el: ConsoleDriver["el"];
let showing: ConsoleDriver["showing"];
let shot: ConsoleDriver["shot"];
let signIn: ConsoleDriver["signIn"];
let until: ConsoleDriver["until"];

beforeAll(async () => {
  c = await startCluster();
  receiver = await startReceiver();
  await c.sim("POST", "/simnet/phones", { phone: CONTACT, pushName: "Ana" });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  problems = pageProblems(page);
  ({ el, showing, shot, signIn, until } = consoleDriver(page, shots));
  // The console asks before what cannot be undone (log out, delete, cancel all).
  page.on("dialog", (d) => void d.accept());
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await c?.close();
});

describe("the console, in a browser", () => {
  it("a wrong token is refused with the API's code and message; the admin token signs in", async () => {
    await page.goto(`${c.url}/console`);
    await el("token").fill("not-the-admin-token");
    await el("sign-in").click();
    await showing("error", "invalid_token");
    await shot("sign-in");
    await page.locator('[data-testid="error"] .close').first().click();
    await el("error").waitFor({ state: "detached" });

    await signIn(ADMIN_TOKEN);
    await showing("signed-in-as", "admin");
    await el("instances").waitFor();
  });

  it("creates an instance: its token kept in the tab's sessionStorage only, never in the URL", async () => {
    await el("create-name").fill("Loja Centro");
    await el("create-provider").selectOption("sim");
    await el("create").click();
    await page.waitForURL(/#\/i\/i[0-9a-z]+/);
    instanceId = /#\/i\/(i[0-9a-z]+)/.exec(page.url())![1]!;
    const token = (await el("new-token").textContent())!;
    instanceToken = token;
    expect(token.length).toBeGreaterThan(10);
    expect(page.url()).not.toContain(token);
    const stored = JSON.parse(
      (await page.evaluate(
        "JSON.stringify({ session: JSON.stringify({ ...sessionStorage }), local: localStorage.length })",
      )) as string,
    ) as { session: string; local: number };
    expect(stored.session).toContain(token);
    expect(stored.local).toBe(0);
    await showing("instance-status", "STOPPED");
  });

  it("pairs: the QR changes live, a pairing code typed on the phone, WORKING without a reload", async () => {
    await el("action-start").click();
    await showing("instance-status", "SCAN_QR_CODE");
    // simnet shows a new QR every 400 ms here: the image follows it.
    await until("the QR image replaced twice", async () => Number(await el("qr").getAttribute("data-changes")) >= 2);
    expect(await el("qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    await shot("pairing");

    await el("pairing-phone").fill(`+${PHONE}`);
    await el("get-pairing-code").click();
    const shown = (await el("pairing-code").textContent())!;
    expect(shown).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await shot("pairing-code");
    const navigations: string[] = [];
    page.on("framenavigated", (f) => navigations.push(f.url()));
    const typed = await c.sim("POST", `/simnet/phones/${PHONE}/pairing-code`, { code: shown, pushName: "Loja" });
    expect(typed.status, await typed.text()).toBe(200);

    await showing("instance-status", "WORKING");
    await showing("paired", `+${PHONE}`);
    expect(navigations).toEqual([]); // no reload: the status came with the live events
    await shot("paired");
  });

  it("sends a message and sees its event in the live log; an inbound one arrives while watching", async () => {
    await el("tab-send").click();
    await el("send-to").fill(CONTACT);
    await el("send-text").fill("Olá do console");
    await el("send").click();
    await showing("send-result", /Sent: true_/);
    await shot("send");

    await el("tab-events").click();
    await page.locator('[data-testid="event-row"][data-event="message.any"]', { hasText: "Olá do console" }).waitFor();
    // Live, with no navigation: the contact answers while the log is open.
    await c.sim("POST", `/simnet/phones/${CONTACT}/send`, {
      to: PHONE,
      message: { type: "text", text: "Oi, tudo bem?" },
    });
    const inbound = page.locator('[data-testid="event-row"][data-event="message"]', { hasText: "Oi, tudo bem?" });
    await inbound.waitFor({ timeout: 15_000 });

    // The filter narrows the log; a row opens the event's JSON.
    await el("event-filter").fill("tudo bem");
    await until("only the matching rows", async () => {
      const rows = await el("event-row").allTextContents();
      return rows.length >= 1 && rows.every((r) => r.includes("tudo bem"));
    });
    await inbound.first().click();
    const json = JSON.parse((await el("event-json").textContent())!) as { event: string; instanceId: string };
    expect(json).toMatchObject({ event: "message", instanceId });
    await el("event-filter").fill("");
    await inbound.first().click();
    await shot("events");
  });

  it("the queue: pause, a queued send with its Temporal link, cancel it, resume", async () => {
    await el("tab-queue").click();
    await el("queue-pause").click();
    await showing("queue-state", "paused");
    await el("tab-send").click();
    await el("send-to").fill(CONTACT);
    await el("send-text").fill("Na fila");
    await el("send-queue").check();
    await el("send").click();
    await showing("send-result", /Queued: qm_/);
    const link = await el("send-result").locator('[data-testid="temporal-link"]').getAttribute("href");
    expect(link).toMatch(
      /^http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\?query=WorkflowId%3D%22queue-item-qm_/,
    );

    await el("tab-queue").click();
    const cancel = page.locator('[data-testid^="cancel-qm_"]');
    await cancel.first().waitFor();
    await shot("queue");
    await cancel.first().click();
    await showing("queue-items", "The queue is empty.");
    await el("queue-resume").click();
    await showing("queue-state", "running");
  });

  it("webhooks: create, a test delivery that fails, retried to success, with status and response time", async () => {
    receiver.respond = 503;
    await el("tab-webhooks").click();
    await el("webhook-url").fill(receiver.url);
    await el("webhook-create").click();
    await el("webhook").first().waitFor();
    await showing("notice", "signing secret");

    await el("webhook-test").click();
    await showing("webhook-test-result", "HTTP 503");
    await showing("delivery-status", "failed");

    receiver.respond = 200;
    await el("retry-delivery").first().click();
    await showing("delivery-status", "succeeded");
    await page.locator('[data-testid="deliveries"] td', { hasText: / ms$/ }).first().waitFor();
    await receiver.waitFor((all) => all.length === 2);
    expect(receiver.received.map((r) => r.envelope.event)).toEqual(["webhook.test", "webhook.test"]);
    await el("webhook-rotate").click();
    await el("webhook-secret").waitFor();
    await shot("webhooks");
  });

  it("the admin's live log of every instance", async () => {
    await el("nav-events").click();
    await showing("live-mode", /live: (stream|polling)|polling the instances/);
    // What happens from now on, in every instance: the admin stream starts at the present, which
    // the gateway fixes a moment after the browser sees the stream open; a message sent in that
    // moment is before it, so the contact writes again until one shows.
    const row = page.locator('[data-testid="event-row"][data-event="message"]', { hasText: "Mais uma" });
    await until("a message in the admin's log", async () => {
      if ((await row.count()) > 0) return true;
      await c.sim("POST", `/simnet/phones/${CONTACT}/send`, { to: PHONE, message: { type: "text", text: "Mais uma" } });
      await row
        .first()
        .waitFor({ timeout: 1500 })
        .catch(() => {});
      return (await row.count()) > 0;
    });
    expect(await row.first().textContent()).toContain(instanceId);
    await row.first().click();
    await shot("all-events");
  });

  it("on a gateway without the event stream, the live log polls: an inbound message still arrives", async () => {
    const other = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const otherProblems = pageProblems(other);
    // What a gateway from before the stream answers to the ticket: its 404.
    await other.route("**/stream-ticket", (r) =>
      r.fulfill({
        status: 404,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "not_found", message: "Rota não encontrada." } }),
      }),
    );
    const d = consoleDriver(other, shots);
    await other.goto(`${c.url}/console`);
    await d.signIn(instanceToken, instanceId);
    await d.el("tab-events").click();
    await d.showing("live-mode", "polling");
    await c.sim("POST", `/simnet/phones/${CONTACT}/send`, {
      to: PHONE,
      message: { type: "text", text: "Pelo polling" },
    });
    await other
      .locator('[data-testid="event-row"][data-event="message"]', { hasText: "Pelo polling" })
      .first()
      .waitFor({ timeout: 15_000 });
    await other.close();
    expect(otherProblems).toEqual([]);
  });

  it("the instances list shows it WORKING with its number; every screen kept to the page's policy", async () => {
    await page.locator('[data-testid="nav-instances"]').click();
    await showing(`status-${instanceId}`, "WORKING");
    await page.locator('[data-testid="instances"] td', { hasText: `+${PHONE}` }).waitFor();
    await shot("instances");
    expect(problems).toEqual([]);
  });
});
