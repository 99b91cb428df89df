// The directory store on a real file system (a temporary directory of this file's).
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { afterAll, describe, expect, it } from "vitest";
import { DirectoryMediaStore } from "./directory-store.ts";
import { sha256Hex } from "./store.ts";

const root = mkdtempSync(join(tmpdir(), "media-dir-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const DAY = 86_400_000;
const store = () => new DirectoryMediaStore({ root, retentionDays: 7, sweepEveryMs: 0 });
const pathOf = (instance: string, hex: string) => join(root, instance, "sha256", hex.slice(0, 2), hex);

describe("DirectoryMediaStore", () => {
  it("stores bytes once under their sha256, per instance, and reads them back whole or by range", async () => {
    const s = store();
    const bytes = Buffer.from("hello, media store");
    const ref = await s.put("inst_a", bytes);
    expect(ref).toEqual({ sha256: sha256Hex(bytes), size: bytes.length });
    expect(await s.put("inst_a", bytes)).toEqual(ref); // the same bytes: the same object
    expect(readdirSync(join(root, "inst_a", "sha256", ref.sha256.slice(0, 2)))).toEqual([ref.sha256]);
    expect(await s.read("inst_a", ref.sha256)).toEqual(bytes);
    expect(await text((await s.open("inst_a", ref.sha256, { start: 7, end: 11 }))!)).toBe("media");
    expect(await text((await s.open("inst_a", ref.sha256))!)).toBe("hello, media store");
    // Another instance's address space: nothing of inst_a's is found there.
    expect(await s.open("inst_b", ref.sha256)).toBeNull();
    expect(await s.read("inst_b", ref.sha256)).toBeNull();
    expect(await s.presign()).toBeNull();
  });

  it("refuses addresses that are not an instance id and a sha256 (no path tricks)", async () => {
    const s = store();
    await expect(s.read("../etc", "0".repeat(64))).rejects.toThrow(/bad instance id/);
    await expect(s.read("inst_a", "../../passwd")).rejects.toThrow(/bad sha256/);
  });

  it("a put of bytes already there touches a file older than a day (its retention restarts)", async () => {
    const bytes = Buffer.from("old but sent again");
    const hex = sha256Hex(bytes);
    await store().put("inst_t", bytes);
    const old = new Date(Date.now() - 3 * DAY);
    utimesSync(pathOf("inst_t", hex), old, old);
    await store().put("inst_t", bytes); // a new process: no memory of it
    expect(Date.now() - statSync(pathOf("inst_t", hex)).mtimeMs).toBeLessThan(60_000);
  });

  it("sweeps files a day past the retention, stale temporary files and emptied folders", async () => {
    const s = store();
    const keep = await s.put("inst_s", Buffer.from("recent"));
    const gone = await s.put("inst_s", Buffer.from("past the retention"));
    const lone = await s.put("inst_lone", Buffer.from("alone"));
    const eightDays = new Date(Date.now() - 8 * DAY - 60_000);
    utimesSync(pathOf("inst_s", gone.sha256), eightDays, eightDays);
    utimesSync(pathOf("inst_lone", lone.sha256), eightDays, eightDays);
    const sevenDays = new Date(Date.now() - 7 * DAY + 60_000);
    utimesSync(pathOf("inst_s", keep.sha256), sevenDays, sevenDays);
    expect(await s.sweep()).toBe(2);
    expect(await s.read("inst_s", keep.sha256)).not.toBeNull();
    expect(await s.read("inst_s", gone.sha256)).toBeNull();
    expect(readdirSync(root)).not.toContain("inst_lone");
  });

  it("removes a deleted instance's objects, and only its own", async () => {
    const s = store();
    const a = await s.put("inst_del", Buffer.from("one"));
    await s.put("inst_del", Buffer.from("two"));
    const other = await s.put("inst_other", Buffer.from("one"));
    expect(await s.removeInstance("inst_del")).toBe(2);
    expect(await s.read("inst_del", a.sha256)).toBeNull();
    expect(await s.read("inst_other", other.sha256)).not.toBeNull();
    // Put again after removal: written anew (the memory of it went with the instance).
    await s.put("inst_del", Buffer.from("one"));
    expect(await s.read("inst_del", a.sha256)).toEqual(Buffer.from("one"));
  });
});
