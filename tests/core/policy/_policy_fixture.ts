import { z } from "zod";
import { defineTool, ToolRouter, type ToolRouterOptions } from "../../../mod.ts";
import type { BuiltinContext } from "../../../src/deno/mod.ts";
import type {
  BuiltinSource,
  PolicySubjects,
  RoutedTool,
} from "../../../src/core/unstable_source.ts";
// The real built-ins' declarations of what policy specifiers read (pure modules, no I/O).
import { bashSubjects } from "../../../src/deno/builtins/bash/shell_commands.ts";
import { patchSubjects } from "../../../src/deno/builtins/patch/parse_patch_text.ts";
import { pathSubjects } from "../../../src/deno/builtins/paths/path_subjects.ts";

const SUBJECTS: Record<string, (args: Record<string, unknown>) => PolicySubjects> = {
  apply_patch: patchSubjects,
  bash: bashSubjects,
  edit: pathSubjects,
  glob: (args) => pathSubjects(args, { searched: true }),
  grep: (args) => pathSubjects(args, { searched: true }),
  read_file: pathSubjects,
  write_file: pathSubjects,
};

/** Calls each tool received, by name, with its arguments. */
export const ran: { tool: string; args: unknown }[] = [];

/** A fake built-in slot (core tests hold no permissions): records calls, runs nothing real. */
export function fakeBuiltins(workspace = "/ws"): BuiltinSource {
  const make = (name: string, readOnly: boolean): RoutedTool => ({
    name,
    description: `Fake ${name}`,
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: readOnly },
    source: "builtin",
    origin: name,
    policySubjects: SUBJECTS[name],
    execute: (args) => {
      ran.push({ tool: name, args });
      return `${name} ran`;
    },
  });
  const tools = ["apply_patch", "bash", "edit", "glob", "grep", "read_file", "write_file"].map(
    (name) => make(name, ["glob", "grep", "read_file"].includes(name)),
  );
  return {
    names: tools.map((tool) => tool.name),
    context: { workspace } as BuiltinContext,
    resolve: (names) => ({
      tools: tools.filter((tool) => names.includes(tool.name)),
      missing: [],
    }),
  };
}

/** Function tools: `delete_user`, `deploy`, `send_email`, `echo`. */
export function functionTools(): ReturnType<typeof defineTool>[] {
  const tool = (name: string, input: z.ZodObject) =>
    defineTool({
      name,
      description: `Tool ${name}`,
      input,
      run: (args) => {
        ran.push({ tool: name, args });
        return `${name} ran`;
      },
    });
  return [
    tool("delete_user", z.object({ id: z.string() })),
    tool("deploy", z.object({ env: z.string(), target: z.string().optional() })),
    tool("send_email", z.object({ to: z.string(), body: z.string().optional() })),
    tool("echo", z.object({ text: z.string() })),
  ];
}

/** A router with the fake built-ins and the function tools. */
export function policyRouter(options: ToolRouterOptions = {}): ToolRouter {
  return new ToolRouter({ builtins: fakeBuiltins(), functions: functionTools(), ...options });
}

/** Everything the fixture offers. */
export const EVERYTHING = {
  builtins: ["apply_patch", "bash", "read_file", "write_file"],
  functions: ["delete_user", "deploy", "send_email", "echo"],
};
