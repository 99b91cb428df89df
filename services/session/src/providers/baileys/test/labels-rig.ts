// Test support (imported only by *.test.ts): the labels area's rig, an account on the business
// app holding an app-state key, and the app-state patches its operations send, decoded back.
import { randomBytes } from "node:crypto";
import {
  type BinaryNode,
  type ChatMutation,
  decodePatches,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  newLTHashState,
  proto,
} from "@whiskeysockets/baileys";
import { expect, vi } from "vitest";
import type { AreaHarness, AreaRig } from "./area-rig.ts";

export const KEY_ID = Buffer.from("labels-test-key").toString("base64");
const KEY = proto.Message.AppStateSyncKeyData.fromObject({
  keyData: randomBytes(32),
  fingerprint: { rawId: 1, currentIndex: 0, deviceIndexes: [0] },
  timestamp: Date.now(),
});

/** A rig whose account is on the business app (`smba`) and holds an app-state key, as after pairing. */
export async function labelsRig(h: AreaHarness, platform: string | undefined = "smba"): Promise<AreaRig> {
  const r = await h.open();
  r.sock.authState.creds.platform = platform;
  r.sock.authState.creds.myAppStateKeyId = KEY_ID;
  await r.sock.authState.keys.set({ "app-state-sync-key": { [KEY_ID]: KEY } });
  return r;
}

/** The account's app-state keys, by id (Baileys' `getAppStateSyncKey`). */
export const getKey = async (id: string) => (id === KEY_ID ? KEY : undefined);

const appState = (n: BinaryNode) => n.attrs.xmlns === "w:sync:app:state";
const collectionOf = (n: BinaryNode) => getBinaryNodeChildren(getBinaryNodeChild(n, "sync"), "collection");
/** Baileys' resync of `regular` before a patch: the collection asked alone, no patch in it. */
export const isResync = (n: BinaryNode) =>
  appState(n) &&
  collectionOf(n).length === 1 &&
  collectionOf(n)[0]!.attrs.name === "regular" &&
  !getBinaryNodeChild(collectionOf(n)[0], "patch");
const isPatch = (n: BinaryNode) => appState(n) && !!getBinaryNodeChild(collectionOf(n)[0], "patch");
const upToDate = (): BinaryNode[] => [
  { tag: "sync", attrs: {}, content: [{ tag: "collection", attrs: { name: "regular", version: "0" } }] },
];

/** Answers one app patch (the resync, then the patch) and decodes its mutations with the account's key. */
export async function patchSent(
  h: AreaHarness,
  r: AreaRig,
): Promise<{ index: string[]; value: proto.ISyncActionValue }[]> {
  await h.answer(r.sock, isResync, upToDate);
  const q = await h.answer(r.sock, isPatch, () => []);
  const collection = collectionOf(q)[0]!;
  expect(collection.attrs.name).toBe("regular");
  const bytes = getBinaryNodeChild(collection, "patch")!.content as Uint8Array;
  const patch = proto.SyncdPatch.decode(bytes);
  const { mutationMap } = await decodePatches(
    "regular",
    [{ ...patch, version: { version: Number(collection.attrs.version) + 1 } }],
    newLTHashState(),
    getKey,
    {},
  );
  return Object.values(mutationMap).map((m: ChatMutation) => ({
    index: m.index,
    value: m.syncAction.value ?? {},
  }));
}

/** The label events the session emitted, as `[kind, payload]`. */
export const labelEvents = (r: AreaRig) =>
  r.events.flatMap((e) => (e.type === "event" && e.kind.startsWith("label.") ? [[e.kind, e.payload] as const] : []));

/** Labels the phone made before (what app-state sync taught the session). */
export async function learn(r: AreaRig, labels: { id: string; name: string; color: number; predefinedId?: string }[]) {
  for (const l of labels) r.sock.ev.emit("labels.edit", { ...l, deleted: false });
  await vi.waitFor(async () => expect(await r.ops["labels.list"]!({})).toHaveLength(labels.length));
}
