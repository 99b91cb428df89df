export declare const ROOT: string;
export declare const REDIS_PORT: number;
export declare const TEMPORAL_PORT: number;
export declare const TEMPORAL_UI_PORT: number;
/** Installs (once) the Temporal time-skipping test server; returns its executable's path. */
export declare function timeSkippingServer(): Promise<string>;
export declare function portOpen(port: number, host?: string, timeoutMs?: number): Promise<boolean>;
export declare function up(opts?: {
  quiet?: boolean;
}): Promise<{ redisUrl: string; temporalAddress: string; temporalUi: string }>;
export declare function down(): Promise<void>;
export declare function status(): Promise<{ redis: string; temporal: string }>;
/** Redis Stack's redis-server, redis-cli and module directory (installed once). */
export declare function redisPaths(): { bin: string; cli: string; lib: string };
/** The Temporal CLI (dev server), installed once. */
export declare function temporalPath(): string;
