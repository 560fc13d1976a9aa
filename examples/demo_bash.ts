/**
 * The bash part of the demo: a scripted model runs commands through the router's `bash` tool in
 * a bubblewrap sandbox. It builds and runs a small script in the workspace, tries to read a
 * secret next to the workspace (the sandbox does not even show it), has a command that never
 * ends killed at its deadline, and runs and stops one background process.
 *
 * Needs bubblewrap (`apt-get install bubblewrap`). Without it the first call fails with a clear
 * error and nothing runs unconfined: the demo prints that once, with the install command and
 * what the steps would have shown, and reports the part as skipped. Deno needs read and write
 * access to the system's temporary directory, `--allow-run=bash,bwrap` and
 * `--allow-env=PATH,HOME,LANG,TERM`.
 */
import { ToolRouter } from "../mod.ts";
import { type BuiltinContext, builtinTools, denoFlags } from "../src/deno/mod.ts";
import { table } from "./_table.ts";

/** How to install bubblewrap on Debian and Ubuntu. */
export const INSTALL = "sudo apt-get install -y bubblewrap";

/** What the demo prints instead of its table when bubblewrap is not installed. */
const WITHOUT_BWRAP = [
  "With bubblewrap, this part shows a scripted model using bash inside the sandbox:",
  '  - it writes and runs a script in the workspace ("sum: 42"); "ls /" shows only bin, dev, etc, ...',
  "  - cat ../private/api_key.txt finds no such file: the sandbox shows only the workspace",
  "  - a command that never ends is killed at its 300 ms deadline (exit code 137)",
  "  - a background process is started, its log read, and stopped",
];

/**
 * Runs the bash demo, printing its table; removes its temporary files and processes.
 *
 * @returns Why the part was skipped (bubblewrap is not installed), or `undefined` when it ran.
 */
export async function demoBash(print: (line: string) => void): Promise<string | undefined> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_demo_bash_" }));
  try {
    const workspace = `${base}/workspace`;
    await Deno.mkdir(workspace);
    await Deno.mkdir(`${base}/private`);
    await Deno.writeTextFile(`${base}/private/api_key.txt`, "sk-not-for-the-model\n");

    const context: BuiltinContext = { workspace, bash: { sandbox: "bwrap" }, outputMaxChars: 400 };
    print(`Workspace: ${workspace}`);
    print(`The host would run Deno with: ${denoFlags(context).join(" ")}`);
    await using router = new ToolRouter({ builtins: builtinTools(context) });
    const tools = await router.expose({ builtins: ["bash"] });
    print("");

    const script: [string, Record<string, unknown>][] = [
      ["sandboxed command", {
        command: "printf 'echo sum: $((6 * 7))\\n' > job.sh && bash job.sh && ls / | tr '\\n' ' '",
      }],
      ["read outside the workspace", { command: "cat ../private/api_key.txt" }],
      ["a command that never ends", { command: "yes", timeoutMs: 300 }],
      ["background process", { action: "start", command: "echo serving; sleep 30" }],
      ["its log", { action: "logs", processId: "p1" }],
      ["stop it", { action: "stop", processId: "p1" }],
    ];
    const rows: string[][] = [];
    for (const [what, args] of script) {
      let result = await tools.call("bash", args);
      // The process writes once the machine gets to it: its log is read again until it has a
      // line, as an agent would (for at most 5 s).
      for (let i = 0; what === "its log" && result.text.includes('"text":""') && i < 50; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await tools.call("bash", args);
      }
      if (result.isError && /bubblewrap \(bwrap\) is not installed/.test(result.text)) {
        print(
          "bubblewrap (bwrap) is not installed, so this part is skipped: the model's bash calls",
        );
        print(
          `come back as ${result.code} and no command runs, confined or not. To see it: ${INSTALL}`,
        );
        print("");
        for (const line of WITHOUT_BWRAP) print(line);
        return "bubblewrap is not installed";
      }
      rows.push([
        what,
        JSON.stringify(args),
        result.isError ? `error: ${result.code}` : "ok",
        result.text,
      ]);
    }
    table(print, ["step", "arguments", "status", "text for the model"], rows);
    print("");
    print('The outside file is not "denied" but absent: the sandbox shows only the workspace,');
    print("system directories (read-only) and an empty /tmp, and has no network.");
    return undefined;
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

if (import.meta.main) await demoBash((line) => console.log(line));
