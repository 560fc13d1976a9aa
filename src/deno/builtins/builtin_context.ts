import type { BuiltinContext } from "../../core/tool_source.ts";
import { broadRootReason } from "./broad_root.ts";
import { DEFAULT_LIMITS } from "./context_limits.ts";
import { DEFAULT_PROXY_LIMITS } from "../sandbox/network_proxy.ts";
import type { ResourceLimits } from "../sandbox/resource_limits.ts";
import {
  absolutePath,
  envName,
  knownFields,
  limit,
  mustBe,
  protectedPath,
  stringList,
} from "./context_fields.ts";

/** The bash setting after defaults: off, or on with a sandbox and the variables it passes. */
export type ResolvedBash = false | {
  /** `"bwrap"` confines commands with bubblewrap; `"none"` does not confine them. */
  readonly sandbox: "bwrap" | "none";
  /** Names of the environment variables a command receives. */
  readonly env: readonly string[];
  /**
   * Bounds of the sandbox session (with `"bwrap"` only): processes, memory in MiB, the size of
   * each of its tmpfs (`/tmp`, home, `/dev/shm`) in MiB, the largest file a command writes in
   * MiB (RLIMIT_FSIZE), and the CPU seconds of each background process (RLIMIT_CPU).
   */
  readonly limits?: {
    readonly processes: number;
    readonly memoryMiB: number;
    readonly tmpMiB: number;
    readonly fileMiB: number;
    readonly backgroundCpuSeconds: number;
    readonly diskMiB: number;
  };
  /**
   * The host names the sandbox may reach through the proxy, and the proxy's bounds (connections
   * open at once, idle timeout); absent: no network at all.
   */
  readonly network?: {
    readonly allow: readonly string[];
    readonly maxConnections: number;
    readonly idleTimeoutMs: number;
  };
};

/**
 * A {@linkcode BuiltinContext} after validation, with every default filled in.
 *
 * Paths are absolute and normalized as declared; real paths (symlinks resolved) are computed
 * per call by the path checks, so a root that is itself a symlink (such as `/tmp`) still works.
 */
export interface ResolvedContext {
  /** Absolute, normalized path of the workspace: read and write. */
  readonly workspace: string;
  /** Absolute, normalized paths that may be read but not written. */
  readonly readOnlyRoots: readonly string[];
  /** Most characters `read_file` returns per call. */
  readonly readMaxChars: number;
  /** Deadline of a `bash` command, in milliseconds. */
  readonly commandTimeoutMs: number;
  /** Most characters of command output per call. */
  readonly outputMaxChars: number;
  /** Most characters kept in a background process's log. */
  readonly processLogChars: number;
  /** Whether bash is on and how it is confined. */
  readonly bash: ResolvedBash;
  /** Paths relative to the workspace (normalized, no `..`) that writes refuse. */
  readonly protectedPaths: readonly string[];
  /** Names of the environment variables commands receive (when bash gives none of its own). */
  readonly env: readonly string[];
}

/** The defaults of the optional context fields. */
export interface ContextDefaults {
  /** Most characters `read_file` returns per call: 12000. */
  readonly readMaxChars: number;
  /** Deadline of a `bash` command: 30000 ms. */
  readonly commandTimeoutMs: number;
  /** Most characters of command output per call: 120000. */
  readonly outputMaxChars: number;
  /** Most characters kept in a background process's log: 12000. */
  readonly processLogChars: number;
  /** Paths inside the workspace that writes refuse: `.git`. */
  readonly protectedPaths: readonly string[];
  /** Environment variables commands receive: PATH, HOME, LANG, TERM. */
  readonly env: readonly string[];
}

/** The defaults of the optional context fields. */
export const CONTEXT_DEFAULTS: ContextDefaults = Object.freeze({
  readMaxChars: 12_000,
  commandTimeoutMs: 30_000,
  outputMaxChars: 120_000,
  processLogChars: 12_000,
  protectedPaths: Object.freeze([".git"]) as readonly string[],
  env: Object.freeze(["PATH", "HOME", "LANG", "TERM"]) as readonly string[],
});

const CONTEXT_LIMITS = [
  "readMaxChars",
  "commandTimeoutMs",
  "outputMaxChars",
  "processLogChars",
] as const;
const KNOWN_FIELDS = [
  "workspace",
  "readOnlyRoots",
  ...CONTEXT_LIMITS,
  "bash",
  "protectedPaths",
  "env",
  "allowBroadRoots",
];

/**
 * Validates a built-in context and fills in its defaults.
 *
 * Throws a `TypeError` for a missing or malformed field (a relative workspace, an unknown field,
 * a protected path outside the workspace, a workspace that is `/`, a top-level system directory
 * or a home directory itself unless `allowBroadRoots: true`) and a `RangeError` for a limit that is not a positive
 * integer. Touches no file system: it needs no permission.
 *
 * @param context The plain-data context of a request.
 * @returns The frozen, validated context.
 */
export function resolveBuiltinContext(context: BuiltinContext): ResolvedContext {
  knownFields(context, {
    known: KNOWN_FIELDS,
    shape: 'an object such as { workspace: "/abs/path" }',
  });
  const workspace = absolutePath(context.workspace, "workspace");
  const broad = broadRootReason(workspace);
  if (broad !== undefined && context.allowBroadRoots !== true) {
    throw new TypeError(
      `Cannot use built-in context: the workspace "${workspace}" is too broad to write (${broad}); use a project folder, or set allowBroadRoots: true`,
    );
  }
  if (context.allowBroadRoots !== undefined && typeof context.allowBroadRoots !== "boolean") {
    throw mustBe('"allowBroadRoots" must be true or false', context.allowBroadRoots);
  }
  const env = stringList(context.env, {
    field: "env",
    fallback: CONTEXT_DEFAULTS.env,
    each: envName,
  });
  return Object.freeze({
    workspace,
    readOnlyRoots: stringList(context.readOnlyRoots, {
      field: "readOnlyRoots",
      fallback: [],
      each: absolutePath,
    }),
    ...Object.fromEntries(
      CONTEXT_LIMITS.map((field) => [
        field,
        limit(context[field], { field, fallback: CONTEXT_DEFAULTS[field] }),
      ]),
    ) as Record<typeof CONTEXT_LIMITS[number], number>,
    bash: resolveBash(context.bash, env),
    protectedPaths: stringList(context.protectedPaths, {
      field: "protectedPaths",
      fallback: CONTEXT_DEFAULTS.protectedPaths,
      each: (path, field) => protectedPath(path, { workspace, field }),
    }),
    env,
  });
}

function resolveBash(value: unknown, env: readonly string[]): ResolvedBash {
  if (value === undefined || value === false) return false;
  // `true` picks the confined setting: a command never runs unconfined unless asked to.
  if (value === true) {
    return Object.freeze({ sandbox: "bwrap" as const, env, limits: DEFAULT_LIMITS });
  }
  const { sandbox, env: bashEnv, limits, network } = knownFields(value, {
    field: "bash",
    known: ["sandbox", "env", "limits", "network"],
    shape: 'true, false or { sandbox: "bwrap" | "none" }',
  });
  if (sandbox !== "bwrap" && sandbox !== "none") {
    throw mustBe('"bash.sandbox" must be "bwrap" or "none"', sandbox);
  }
  const names = bashEnv === undefined
    ? env
    : stringList(bashEnv, { field: "bash.env", fallback: [], each: envName });
  if (sandbox === "none") {
    if (limits !== undefined || (network !== undefined && network !== "none")) {
      throw new TypeError(
        'Cannot use built-in context: "bash.limits" and "bash.network" need sandbox "bwrap" (nothing bounds an unconfined command)',
      );
    }
    return Object.freeze({ sandbox, env: names });
  }
  const resolvedNetwork = resolveNetwork(network);
  return Object.freeze({
    sandbox,
    env: names,
    limits: resolveLimits(limits),
    ...(resolvedNetwork === undefined ? {} : { network: resolvedNetwork }),
  });
}

function resolveNetwork(
  value: unknown,
): Exclude<ResolvedBash, false>["network"] | undefined {
  if (value === undefined || value === "none") return undefined;
  const fields = knownFields(value, {
    field: "bash.network",
    known: ["allow", "maxConnections", "idleTimeoutMs"],
    shape: '"none" or { allow: ["registry.npmjs.org"], maxConnections?, idleTimeoutMs? }',
  });
  const allow = fields.allow;
  if (!Array.isArray(allow)) {
    throw mustBe(
      '"bash.network.allow" must list the host names the sandbox may reach, such as ["registry.npmjs.org"]',
      allow,
    );
  }
  const names = allow.map((name, i) => {
    if (
      typeof name !== "string" || !/^(\*\.)?([a-z0-9_-]+\.)*[a-z0-9_-]+$/i.test(name) ||
      /^[0-9.]+$/.test(name)
    ) {
      throw mustBe(
        `"bash.network.allow[${i}]" must be a host name such as "registry.npmjs.org" or "*.example.com" (no IP address, port or scheme)`,
        name,
      );
    }
    return name.toLowerCase();
  });
  return Object.freeze({
    allow: Object.freeze([...new Set(names)]),
    maxConnections: limit(fields.maxConnections, {
      field: "bash.network.maxConnections",
      fallback: DEFAULT_PROXY_LIMITS.maxConnections,
    }),
    idleTimeoutMs: limit(fields.idleTimeoutMs, {
      field: "bash.network.idleTimeoutMs",
      fallback: DEFAULT_PROXY_LIMITS.idleTimeoutMs,
    }),
  });
}

// In the order of `ResourceLimits`: processes, memoryMiB, tmpMiB, fileMiB, …
const LIMIT_FIELDS = Object.keys(DEFAULT_LIMITS) as (keyof ResourceLimits)[];

function resolveLimits(value: unknown): ResourceLimits {
  if (value === undefined) return DEFAULT_LIMITS;
  const fields = knownFields(value, {
    field: "bash.limits",
    known: LIMIT_FIELDS,
    shape:
      "an object such as { processes: 512, memoryMiB: 2048, tmpMiB: 512, fileMiB: 1024, backgroundCpuSeconds: 3600 }",
  });
  return Object.freeze(Object.fromEntries(LIMIT_FIELDS.map((name) => [
    name,
    limit(fields[name], { field: `bash.limits.${name}`, fallback: DEFAULT_LIMITS[name] }),
  ]))) as unknown as ResourceLimits;
}
