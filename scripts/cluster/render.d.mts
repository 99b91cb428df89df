// Types of render.mjs for the TypeScript tests (test/cluster-render.test.ts).
export declare const RELEASE: string;
export declare const NAMESPACE: string;
export declare const VALUES_FILE: string;
export interface Override {
  name: string;
  why: string;
  value(ports: Record<string, number>): string;
}
export declare const OVERRIDES: Record<"gateway" | "session" | "worker", Override[]>;
/** A rendered Kubernetes object (only what the renderer reads is typed). */
export interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}
export declare function nestValues(set: Record<string, unknown>): Record<string, unknown>;
export declare function renderManifests(opts?: {
  set?: Record<string, string | number | boolean>;
  valuesFiles?: string[];
  log?: (msg: string) => void;
}): K8sObject[];
export declare function containerEnv(
  container: unknown,
  ctx: { objects: K8sObject[]; podName: string; namespace?: string },
): Record<string, string>;
export interface RoleSpec {
  kind: "Deployment" | "StatefulSet";
  name: string;
  replicas: number;
  pods: { podName: string; env: Record<string, string> }[];
  ready?: { path: string; port: number };
  ports: Record<string, number>;
}
export declare function roleSpecs(objects: K8sObject[]): Partial<Record<"gateway" | "session" | "worker", RoleSpec>>;
export declare function sharedEnv(objects: K8sObject[]): Record<string, string>;
export declare function withOverrides(
  role: string,
  env: Record<string, string>,
  ports: Record<string, number>,
): Record<string, string>;
