/** Every Redis key of the platform, under one prefix so that tests and tenants can share a server. */
export function keys(prefix: string) {
  return {
    prefix,
    /** redis-om schema names: documents live at `<schema>:<id>`. */
    instanceSchema: `${prefix}instance`,
    accountSchema: `${prefix}account`,
    instanceDoc: (id: string) => `${prefix}instance:${id}`,
    /** Hash {tokenHash, accountId}: what the request path needs to authenticate. */
    instanceAuth: (id: string) => `${prefix}auth:i:${id}`,
    /** Hash {clientTokenHash, requireOnAllCalls, instancesCreated}. */
    accountAuthPrefix: `${prefix}auth:a:`,
    accountAuth: (id: string) => `${prefix}auth:a:${id}`,
    rateLimit: (id: string) => `${prefix}rl:${id}`,
    invalidations: `${prefix}invalidate`,
  };
}
export type Keys = ReturnType<typeof keys>;
