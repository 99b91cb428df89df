// The import graph's rules, checked by `make test` (scripts/import-graph.mjs): no import circle
// (type-only imports count: every tool flags them, and they hide a registry that imports back),
// and the layers import downwards only:
//   contracts ← platform ← session ← sending ← gateway, worker ← main
// Tests sit above every layer (they may import anything); simnet, cloudmock, chatwootmock and
// webhook-verify stand apart (mocks and a client helper) and import no layer above contracts.
// The console (services/console: browser code in web/, the module serving it in src/) sits beside
// the gateway, which alone mounts it; it imports only contracts (types, in the browser code).
const NOT_TEST = "\\.test\\.ts$|/test/|/testing/";
const layer = (name, from, above) => ({
  name,
  severity: "error",
  comment: `${from} imports only from the layers below it`,
  from: { path: `^services/${from}/`, pathNot: NOT_TEST },
  to: { path: `^(services/(${above.join("|")})|test)/` },
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: a registry's type belongs in a file of its own, below the list and the areas.",
      from: {},
      to: { circular: true },
    },
    layer("contracts-is-the-floor", "contracts", [
      "platform",
      "session",
      "sending",
      "gateway",
      "worker",
      "main",
      "simnet",
      "cloudmock",
      "chatwootmock",
    ]),
    layer("platform-below-session", "platform", [
      "session",
      "sending",
      "gateway",
      "worker",
      "main",
      "simnet",
      "cloudmock",
      "chatwootmock",
    ]),
    layer("session-below-sending", "session", ["sending", "gateway", "worker", "main", "cloudmock", "chatwootmock"]),
    layer("sending-below-gateway", "sending", ["gateway", "worker", "main", "simnet", "cloudmock", "chatwootmock"]),
    layer("gateway-below-main", "gateway", ["worker", "main", "simnet", "cloudmock", "chatwootmock"]),
    layer("worker-below-main", "worker", ["gateway", "main", "simnet", "cloudmock", "chatwootmock"]),
    layer("mocks-stand-apart", "(simnet|cloudmock|chatwootmock|webhook-verify)", [
      "platform",
      "session",
      "sending",
      "gateway",
      "worker",
      "main",
    ]),
    layer("console-beside-gateway", "console", [
      "platform",
      "session",
      "sending",
      "gateway",
      "worker",
      "main",
      "simnet",
      "cloudmock",
      "chatwootmock",
      "webhook-verify",
    ]),
    {
      name: "console-mounted-by-gateway-only",
      severity: "error",
      comment: "Only the gateway serves the console: no other layer has a use for it.",
      from: {
        path: "^services/(contracts|platform|session|sending|worker|main|simnet|cloudmock|chatwootmock|webhook-verify)/",
        pathNot: NOT_TEST,
      },
      to: { path: "^services/console/" },
    },
    {
      name: "no-test-code-in-production",
      severity: "error",
      comment: "Production modules never import a test, a rig or the test kit.",
      from: { path: "^(services|workflows)/", pathNot: NOT_TEST },
      to: { path: `(${NOT_TEST})|^test/` },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|\\.local|dist" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".mjs", ".js"],
    },
  },
};
