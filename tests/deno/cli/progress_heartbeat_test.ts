import { assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { withBashProgress } from "../../../src/deno/cli/progress_heartbeat.ts";
import type { ToolProgress } from "../../../src/core/options.ts";
import type { BuiltinSource, RoutedTool } from "../../../src/core/unstable_source.ts";

function tool(name: string, ms: number): RoutedTool {
  return {
    name,
    description: name,
    inputSchema: { type: "object" },
    source: "builtin",
    origin: name,
    execute: () => new Promise((resolve) => setTimeout(() => resolve("done"), ms)),
  };
}

const source: BuiltinSource = {
  names: ["bash", "read_file"],
  resolve: (names) => ({
    tools: names.map((name) => tool(name, 120)),
    missing: [],
  }),
};

Deno.test("withBashProgress() reports progress while bash runs, only when someone listens", async () => {
  const { tools } = withBashProgress(source, 25).resolve(["bash", "read_file"]);
  const reports: ToolProgress[] = [];
  const signal = new AbortController().signal;
  const onProgress = (report: ToolProgress) => reports.push(report);
  assertEquals(await tools[0].execute({}, { signal, onProgress }), "done");
  const seen = reports.length;
  assertEquals(seen >= 2, true, `${seen} reports`);
  assertEquals(reports.map((report) => report.progress), reports.map((_, index) => index + 1));
  await tools[1].execute({}, { signal, onProgress });
  assertEquals(reports.length, seen);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assertEquals(reports.length, seen);
});

Deno.test("withBashProgress() keeps what the policy reads of bash: an allow rule for one command still covers it", async () => {
  const ran: unknown[] = [];
  const bash: RoutedTool = {
    ...tool("bash", 0),
    readOnly: false,
    policySubjects: (args) => ({
      kind: "commands",
      commands: [{ words: String(args.command).split(" "), plain: true }],
    }),
    execute: (args) => {
      ran.push(args.command);
      return "ran";
    },
  };
  const plain: BuiltinSource = { names: ["bash"], resolve: () => ({ tools: [bash], missing: [] }) };
  const wrapped = withBashProgress(plain).resolve(["bash"]).tools[0];
  assertEquals(typeof wrapped.policySubjects, "function", "the command reader was kept");
  assertEquals(wrapped.readOnly, false);
  const router = new ToolRouter({
    builtins: withBashProgress(plain),
    policy: { allow: ["bash(git status)"], default: "deny" },
  });
  const toolSet = await router.expose({ builtins: ["bash"] });
  const allowed = await toolSet.call("bash", { command: "git status" });
  assertEquals([allowed.isError, allowed.text], [false, "ran"]);
  const other = await toolSet.call("bash", { command: "rm -rf x" });
  assertEquals(other.isError, true);
  assertEquals(ran, ["git status"], "only the allowed command ran");
});
