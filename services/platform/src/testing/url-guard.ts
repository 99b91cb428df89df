// What the URL guard's tests share (services/platform/src/url-guard/*.test.ts).
import type { LookupAddress } from "node:dns";
import { ApiError } from "@gw/contracts";
import { expect } from "vitest";
import type { HostLookup } from "../url-guard/urls.ts";

export const STRICT = { allowPrivate: false };
export const OPEN = { allowPrivate: true };

export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected an ApiError");
}

export async function apiErrorAsync(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** An injected lookup answering from a fixed list per call; records the names asked. */
export function scriptedLookup(...answers: (LookupAddress[] | Error)[]): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)];
    calls.push(hostname);
    if (answer instanceof Error) throw answer;
    return answer ?? [];
  };
  return Object.assign(fn, { calls });
}
export const a4 = (address: string): LookupAddress => ({ address, family: 4 });
export const a6 = (address: string): LookupAddress => ({ address, family: 6 });
