import { CAPABILITIES, type Capability, PROVIDERS_OF_KIND, supports } from "@gw/contracts";

/**
 * docs/capabilities.md, generated from the capability table (contracts/capabilities.ts): which
 * route each instance kind and provider serves, and the 501 the others answer. `pnpm --silent
 * capabilities > docs/capabilities.md` writes it; a test checks it is current.
 */
export function capabilitiesMarkdown(): string {
  const providers = Object.entries(PROVIDERS_OF_KIND).flatMap(([kind, list]) =>
    list.map((p) => ({ kind: kind as keyof typeof PROVIDERS_OF_KIND, provider: p })),
  );
  const cell = (
    cap: Capability,
    kind: keyof typeof PROVIDERS_OF_KIND,
    provider: (typeof providers)[number]["provider"],
  ) => {
    const verdict = supports(cap, kind, provider);
    return verdict === true ? "yes" : `501 \`${verdict.code}\``;
  };
  const lines = [
    "# Capabilities: which route each instance kind and provider serves",
    "",
    "Generated from `services/contracts/src/capabilities.ts` by `pnpm --silent capabilities` — do not edit by hand.",
    "Paths are relative to `/v1/instances/{instanceId}`. A route a kind lacks answers `501 not_supported_by_provider`",
    "(standard-only routes on official-gateway instances) or `501 official_api_only` (official-only routes on standard",
    "instances); a provider of the right kind that lacks it answers `501 not_supported`, with the reason below.",
    "",
    `| route | ${providers.map((p) => `${p.provider} (${p.kind})`).join(" | ")} |`,
    `|---|${providers.map(() => "---").join("|")}|`,
  ];
  const gaps: string[] = [];
  const notes: string[] = [];
  for (const [route, cap] of Object.entries(CAPABILITIES) as [string, Capability][]) {
    lines.push(`| \`${route}\` | ${providers.map((p) => cell(cap, p.kind, p.provider)).join(" | ")} |`);
    for (const [provider, why] of Object.entries(cap.gaps ?? {}))
      gaps.push(`- \`${route}\` on \`${provider}\`: ${why}`);
    if (cap.official && cap.kinds !== "standard") notes.push(`- \`${route}\`: ${cap.official}`);
  }
  lines.push("", "## Provider gaps (501 `not_supported`)", "", ...(gaps.length ? gaps : ["None."]));
  lines.push("", "## What differs on official-gateway instances", "", ...notes, "");
  return lines.join("\n");
}
