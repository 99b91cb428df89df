export declare const ROOT: string;
export declare const REDIS_PORT: number;
export declare const TEMPORAL_PORT: number;
export declare const TEMPORAL_UI_PORT: number;
export declare const S3_PORT: number;
/** Installs (once) the Temporal time-skipping test server; returns its executable's path. */
export declare function timeSkippingServer(): Promise<string>;
export declare function portOpen(port: number, host?: string, timeoutMs?: number): Promise<boolean>;
export declare function up(opts?: {
  quiet?: boolean;
}): Promise<{ redisUrl: string; temporalAddress: string; temporalUi: string; s3Endpoint: string }>;
/** Creates the bucket on the local S3 server when missing; answers its name. */
export declare function ensureBucket(endpoint: string, bucket: string): Promise<string>;
/** moto (the S3 server), installed once; answers its PYTHONPATH. */
export declare function motoPath(): string;
export declare function down(): Promise<void>;
export declare function status(): Promise<{ redis: string; temporal: string; s3: string }>;
/** Redis Stack's redis-server, redis-cli and module directory (installed once). */
export declare function redisPaths(): { bin: string; cli: string; lib: string };
/** Redis Stack's arguments (one list for every place that starts one); `aof`: append-only, fsync every second. */
export declare function redisServerArgs(opts: { port: number; dir: string; lib: string; aof?: boolean }): string[];
/** The Temporal CLI (dev server), installed once. */
export declare function temporalPath(): string;
