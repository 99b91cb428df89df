import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import {
  type ByteRange,
  FreshObjects,
  instancePrefix,
  type MediaRef,
  type MediaStore,
  objectKey,
  sha256Hex,
  TOUCH_AFTER_MS,
} from "./store.ts";

const DAY_MS = 86_400_000;
/** A half-written file (a process killed mid-write) older than this is debris. */
const TEMP_MAX_AGE_MS = 3_600_000;

export interface DirectoryStoreOptions {
  root: string;
  retentionDays: number;
  /** How often the store sweeps itself (0: never; tests call {@link DirectoryMediaStore.sweep}). */
  sweepEveryMs: number;
  onSweepError?: (err: unknown) => void;
}

const isMissing = (err: unknown) => (err as { code?: string }).code === "ENOENT";

/**
 * The embedded store: files under one directory (`make dev`, tests, single-machine installs, or a
 * volume every role mounts). `<root>/<instanceId>/sha256/<2 hex>/<hex>`: the two-character
 * fan-out keeps directories small. Writes go to a temporary name, then a rename, so a reader never
 * sees half a file. The retention is the file's mtime: a put of the same bytes touches it, and
 * the hourly sweep removes files a day past the retention.
 */
export class DirectoryMediaStore implements MediaStore {
  readonly kind = "dir" as const;
  readonly retentionDays: number;
  private readonly fresh = new FreshObjects();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: DirectoryStoreOptions) {
    this.retentionDays = opts.retentionDays;
    if (opts.sweepEveryMs > 0) {
      // The first sweep a few minutes after start (spread over processes), not an interval later:
      // a process restarted more often than hourly would otherwise never sweep.
      this.schedule(Math.min(opts.sweepEveryMs, 60_000 + Math.random() * 240_000));
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.sweep()
        .catch((err) => this.opts.onSweepError?.(err))
        .finally(() => {
          if (this.timer) this.schedule(this.opts.sweepEveryMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private path(instanceId: string, sha256: string): string {
    objectKey(instanceId, sha256); // validates both
    return join(this.opts.root, instanceId, "sha256", sha256.slice(0, 2), sha256);
  }

  async put(instanceId: string, bytes: Uint8Array, sha256 = sha256Hex(bytes)): Promise<MediaRef> {
    const ref = { sha256, size: bytes.length };
    const key = objectKey(instanceId, sha256);
    if (this.fresh.isFresh(key)) return ref;
    const path = this.path(instanceId, sha256);
    const now = Date.now();
    const found = await stat(path).catch((err) => (isMissing(err) ? null : Promise.reject(err)));
    if (found && found.size === bytes.length) {
      if (now - found.mtimeMs >= TOUCH_AFTER_MS) {
        const t = new Date(now);
        await utimes(path, t, t);
        this.fresh.mark(key, now);
      } else this.fresh.mark(key, found.mtimeMs);
      return ref;
    }
    // Missing (or a different size: debris from a failed disk): written anew.
    await mkdir(join(path, ".."), { recursive: true });
    const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temp, bytes);
    await rename(temp, path);
    this.fresh.mark(key, now);
    return ref;
  }

  async open(instanceId: string, sha256: string, range?: ByteRange): Promise<Readable | null> {
    // Opened here, not lazily by the stream, so that a missing file is null before any header goes out.
    const handle = await open(this.path(instanceId, sha256), "r").catch((err) =>
      isMissing(err) ? null : Promise.reject(err),
    );
    if (!handle) return null;
    return handle.createReadStream({ autoClose: true, ...(range ?? {}) });
  }

  async read(instanceId: string, sha256: string): Promise<Buffer | null> {
    return readFile(this.path(instanceId, sha256)).catch((err) => (isMissing(err) ? null : Promise.reject(err)));
  }

  async presign(): Promise<string | null> {
    return null; // a directory has no URL of its own: the file route streams it
  }

  async removeInstance(instanceId: string): Promise<number> {
    const dir = join(this.opts.root, instancePrefix(instanceId));
    let count = 0;
    for await (const _ of files(join(dir, "sha256"))) count++;
    await rm(dir, { recursive: true, force: true });
    this.fresh.forgetPrefix(instancePrefix(instanceId));
    return count;
  }

  /** Removes files a day past the retention (and stale temporary files); answers how many. */
  async sweep(now = Date.now()): Promise<number> {
    const oldest = now - (this.retentionDays + 1) * DAY_MS;
    let removed = 0;
    for (const instance of await dirents(this.opts.root)) {
      const base = join(this.opts.root, instance, "sha256");
      for await (const file of files(base)) {
        const s = await stat(file).catch(() => null);
        if (!s) continue;
        const temp = file.endsWith(".tmp");
        if (s.mtimeMs < (temp ? now - TEMP_MAX_AGE_MS : oldest)) {
          await unlink(file).catch(() => {});
          removed++;
        }
      }
      // Empty fan-out folders, then the instance's own, go too (rmdir refuses non-empty ones).
      for (const fan of await dirents(base)) await rmdir(join(base, fan)).catch(() => {});
      await rmdir(base).catch(() => {});
      await rmdir(join(this.opts.root, instance)).catch(() => {});
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

async function dirents(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** Every file two levels below `base` (`<fan>/<file>`). */
async function* files(base: string): AsyncGenerator<string> {
  for (const fan of await dirents(base)) {
    for (const name of await dirents(join(base, fan))) yield join(base, fan, name);
  }
}
