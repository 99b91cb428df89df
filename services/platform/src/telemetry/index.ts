// @gw/platform/telemetry: OpenTelemetry traces (tracing.ts: the SDK, on only with an OTLP
// endpoint; state.ts: whether it is on), the span helpers the roles use (spans.ts), and the bridge
// for Temporal's workflow spans (workflow-spans.ts). A subpath of its own, like url-guard: the
// platform's main entry (the logger's mixin) loads only the API and the flag, not the SDK.
export * from "./spans.ts";
export * from "./state.ts";
export * from "./tracing.ts";
export * from "./workflow-spans.ts";
