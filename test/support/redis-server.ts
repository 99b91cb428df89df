// A Redis Stack server of a test's own (a second shard; one a test may kill and restart), from
// the stack's binary and modules, on an ephemeral port, in a temporary directory.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisPaths, redisServerArgs } from "../../scripts/stack-lib.mjs";
import { freePort } from "./e2e-helpers.ts";

export interface RedisServer {
  url: string;
  port: number;
  /** SIGKILL: the server dies on the spot (with `aof`, what it acknowledged survives a restart). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (its AOF replayed). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** One PING over a plain socket: "+PONG" once the server answers (not while it loads its AOF). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (c) => {
      got += c.toString();
      if (got.includes("\r\n")) done(got.startsWith("+PONG"));
    });
  });
}

async function waitForPing(port: number, child: ChildProcess, out: () => string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${out()}`);
    if (await ping(port)) return;
    if (Date.now() > until) throw new Error(`redis-server did not answer: ${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startRedisServer(opts: { aof?: boolean } = {}): Promise<RedisServer> {
  const { bin, lib } = redisPaths();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "gw-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess;
  let out = "";
  const launch = async () => {
    out = "";
    child = spawn(bin, redisServerArgs({ port, dir, lib, aof: opts.aof ?? false }), {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
    });
    child.stderr?.on("data", (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
    });
    await waitForPing(port, child, () => out);
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGKILL");
    await exited;
  };
  await launch();
  return {
    url,
    port,
    kill,
    restart: launch,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
