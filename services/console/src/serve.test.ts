import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerConsole } from "./serve.ts";

let app: FastifyInstance;
beforeAll(async () => {
  // As the gateway's public server: /console/ is /console.
  app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  registerConsole(app, { temporalNamespace: "ns1" });
  await app.ready();
});
afterAll(() => app.close());

const get = (url: string) => app.inject({ method: "GET", url });

describe("the console's files", () => {
  it("the page: HTML with no inline script or style, under the strict policy", async () => {
    for (const url of ["/console", "/console/"]) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.body).toContain('<script type="module" src="/console/app.js"></script>');
      expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.body).not.toMatch(/\sstyle=|<style/);
      const csp = String(res.headers["content-security-policy"]);
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "img-src 'self' data: blob:",
        "frame-ancestors 'none'",
      ]) {
        expect(csp).toContain(directive);
      }
      expect(csp).not.toContain("unsafe-inline");
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
  });

  it("the script and the stylesheet, bundled from web/", async () => {
    const js = await get("/console/app.js");
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toMatch(/^application\/javascript/);
    expect(js.headers["content-security-policy"]).toBeDefined();
    // The bundle holds no import left to resolve at run time (no CDN, no other origin).
    expect(js.body).not.toMatch(/\bimport\s*[("'{*]|https?:\/\/(?!127\.0\.0\.1:8233)[a-z]/i);
    const css = await get("/console/app.css");
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    expect(css.body).toContain(".badge");
  });

  it("settings for the browser: the Temporal UI and namespace, nothing secret", async () => {
    const res = await get("/console/config.json");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ temporalUiUrl: expect.stringMatching(/^https?:\/\//), temporalNamespace: "ns1" });
  });

  it("any other name under /console is not found", async () => {
    expect((await get("/console/main.ts")).statusCode).toBe(404);
    expect((await get("/console/..%2Fpackage.json")).statusCode).toBe(404);
  });
});
