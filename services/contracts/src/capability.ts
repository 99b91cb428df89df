// What a route's capability is (which instance kinds and providers serve it) and the verdicts
// drawn from one: the capability table's types, in a file of their own below the table
// (capabilities.ts) and the feature areas' fragments of it (areas/*.ts), which both import them.
import { ApiError } from "./errors.ts";
import type { InstanceKind, Provider } from "./instance.ts";

/**
 * One entry of the capability table (capabilities.ts): which instance kind and provider supports
 * a route. The table is the one the routing (the 501s), the OpenAPI text and
 * docs/capabilities.md derive from; its keys are the spec's tables' own `METHOD /path`, relative
 * to `/v1/instances/{instanceId}`.
 *
 * - `kinds`: the spec's kind rule. A standard-only route answers `501 not_supported_by_provider`
 *   on official-gateway instances; an official-only route answers `501 official_api_only` on
 *   standard instances.
 * - `gaps`: a provider of the right kind that cannot do it (the network library has no call for
 *   it): `501 not_supported` with the text given, which names what is missing.
 * - `official`: what the route does on official-gateway instances when it differs (the OpenAPI
 *   text and docs/official.md show it).
 */
export interface Capability {
  kinds: "both" | "standard" | "official";
  gaps?: Partial<Record<Provider, string>>;
  official?: string;
}

/** The providers of each kind. */
export const PROVIDERS_OF_KIND: Record<InstanceKind, readonly Provider[]> = {
  standard: ["sim", "baileys"],
  official: ["cloud"],
};

/** Whether `provider` serves the route: true, or why not (the 501's message). */
export function supports(cap: Capability, kind: InstanceKind, provider: Provider): true | ApiError {
  if (cap.kinds === "standard" && kind !== "standard") {
    return new ApiError(
      "not_supported_by_provider",
      "Rota indisponível em instâncias do gateway oficial (só instâncias padrão).",
    );
  }
  if (cap.kinds === "official" && kind !== "official") return new ApiError("official_api_only");
  const gap = cap.gaps?.[provider];
  return gap ? new ApiError("not_supported", gap) : true;
}

/** One line for the OpenAPI description: who serves the route, and the 501 the others get. */
export function describeCapability(cap: Capability): string {
  const parts: string[] = [];
  for (const kind of ["standard", "official"] as const) {
    const label = kind === "standard" ? "standard" : "official-gateway";
    const providers = PROVIDERS_OF_KIND[kind];
    const verdicts = providers.map((p) => [p, supports(cap, kind, p)] as const);
    const yes = verdicts.filter(([, v]) => v === true).map(([p]) => p);
    const no = verdicts.filter(([, v]) => v !== true) as [Provider, ApiError][];
    if (yes.length === providers.length) parts.push(`${label}: yes`);
    else if (yes.length === 0) parts.push(`${label}: 501 \`${no[0]![1].code}\``);
    else parts.push(`${label}: ${yes.join(", ")}; ${no.map(([p, e]) => `${p} 501 \`${e.code}\``).join(", ")}`);
  }
  const line = `**Instance kinds** — ${parts.join(" · ")}.`;
  return cap.official && cap.kinds !== "standard" ? `${line} On official-gateway instances: ${cap.official}` : line;
}
