// A queued send's files (queue-files.ts): put in the media store at enqueue, a reference in the
// item in their place, read back into the same request at send time; a file that is gone fails
// honestly on its field.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, type SendRequest } from "@gw/contracts";
import { DirectoryMediaStore, sha256Hex } from "@gw/platform";
import { afterAll, describe, expect, it } from "vitest";
import { resolveQueuedFiles, stashQueuedFiles } from "./queue-files.ts";

const root = mkdtempSync(join(tmpdir(), "queue-files-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const store = new DirectoryMediaStore({ root, retentionDays: 7, sweepEveryMs: 0 });
const INSTANCE = "inst_queue_files";
const bytes = randomBytes(5_000);
const b64 = bytes.toString("base64");
const ref = { sha256: sha256Hex(bytes), size: bytes.length };

const requests: [string, SendRequest, (r: SendRequest) => unknown][] = [
  [
    "an image",
    { route: "image", body: { phone: "5511988887777", file: { data: b64, mimetype: "image/png" }, caption: "oi" } },
    (r) => (r.body as { file: unknown }).file,
  ],
  [
    "a data: URL document (its type kept)",
    {
      route: "file",
      body: { phone: "5511988887777", file: { data: `data:application/pdf;base64,${b64}`, filename: "a.pdf" } },
    },
    (r) => (r.body as { file: unknown }).file,
  ],
  [
    "a link preview's image",
    {
      route: "link-preview",
      body: {
        phone: "5511988887777",
        text: "veja https://x.example",
        preview: {
          title: "X",
          description: "",
          url: "https://x.example",
          image: { data: b64, mimetype: "image/jpeg" },
        },
      },
    },
    (r) => (r.body as { preview: { image: unknown } }).preview.image,
  ],
  [
    "a template's header",
    {
      route: "template",
      body: {
        phone: "5511988887777",
        template: { name: "pedido", language: "pt_BR", header: { image: { data: b64, mimetype: "image/png" } } },
      },
      // The header's inferred type wants all three media keys (contracts' mediaHeader): one is what a body has.
    } as unknown as SendRequest,
    (r) => (r.body as { template: { header: { image: unknown } } }).template.header.image,
  ],
  [
    "reply buttons' header",
    {
      route: "buttons",
      body: {
        phone: "5511988887777",
        text: "Escolha",
        buttons: [{ id: "a", title: "A" }],
        header: { document: { data: b64, mimetype: "application/pdf", filename: "menu.pdf" } },
      },
    } as unknown as SendRequest,
    (r) => (r.body as { header: { document: unknown } }).header.document,
  ],
];

describe("a queued send's files", () => {
  it.each(requests)("%s: the item keeps a reference, the send gets the same request back", async (_, req, fileOf) => {
    const stashed = await stashQueuedFiles(store, INSTANCE, req);
    const json = JSON.stringify(stashed);
    expect(json).not.toContain(b64.slice(1000, 1400));
    const kept = fileOf(stashed) as Record<string, unknown>;
    expect(kept.data).toBeUndefined();
    expect(kept.stored).toMatchObject(ref);
    expect(await store.read(INSTANCE, ref.sha256)).toEqual(bytes);
    // As the item's JSON goes through Redis and back.
    const back = await resolveQueuedFiles(store, INSTANCE, JSON.parse(json) as SendRequest);
    expect(back).toEqual(req);
  });

  it("a request without inline files is kept as it is (no copy, nothing stored)", async () => {
    const text: SendRequest = { route: "text", body: { phone: "5511988887777", text: "oi" } };
    const byUrl: SendRequest = {
      route: "image",
      body: { phone: "5511988887777", file: { url: "https://x.example/a.png" } },
    };
    expect(await stashQueuedFiles(store, INSTANCE, text)).toBe(text);
    expect(await stashQueuedFiles(store, INSTANCE, byUrl)).toBe(byUrl);
    expect(await resolveQueuedFiles(store, INSTANCE, byUrl)).toBe(byUrl);
  });

  it("a file whose object is gone fails the send with not_found on its field", async () => {
    const req = requests[0]![1];
    const stashed = await stashQueuedFiles(store, "inst_other_queue", req);
    await store.removeInstance("inst_other_queue");
    const err = await resolveQueuedFiles(store, "inst_other_queue", stashed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "not_found", details: { "file.data": expect.stringContaining("5000 bytes") } });
  });

  it("a store that fails queues nothing: its error is thrown", async () => {
    const failing = { ...store, put: () => Promise.reject(new Error("bucket down")) } as unknown as typeof store;
    await expect(stashQueuedFiles(failing, INSTANCE, requests[0]![1])).rejects.toThrow("bucket down");
  });
});
