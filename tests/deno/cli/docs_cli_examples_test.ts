/**
 * The `toolroute …` commands README.md and docs/cli.md show run as documented, in a fresh folder
 * as a new user's: each command the docs name (inline or in a shell block) is listed here with
 * the arguments it runs with (placeholders filled in) and its exit code, or why it is not run
 * here. A command the docs gain or lose fails the first test until it is listed, so no example
 * goes stale unseen. None needs the network: the config is `toolroute init`'s.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { fromFileUrl, join } from "@std/path";
import { CLI } from "./_serve_process.ts";

const ROOT = new URL("../../..", import.meta.url).pathname;

/** Every `toolroute …` command the README and docs/cli.md show. */
async function documentedCommands(): Promise<string[]> {
  const found = new Set<string>();
  for (const doc of ["README.md", "docs/cli.md"]) {
    const text = await Deno.readTextFile(join(ROOT, doc));
    for (const [, span] of text.matchAll(/`(toolroute [a-z][^`\n]*)`/g)) found.add(span);
    for (const [, block] of text.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
      for (const [, command] of block.matchAll(/jsr:@toolroute\/toolroute\/cli ([^)\\\n]*)/g)) {
        found.add(`toolroute ${command.trim()}`);
      }
    }
  }
  return [...found].sort();
}

/** How a documented command runs here: in process, or as `serve` over stdio with its flags. */
type Example =
  | { args: string[]; code: number }
  | { serve: string[] }
  | { notRun: string };

const READ = ["read_file", '{"path":"toolroute.json"}'];

/**
 * Each documented command, in the order they run (init first: it writes the config the others
 * use). `DIR` is the fresh folder.
 */
const EXAMPLES: [string, Example][] = [
  ["toolroute init", { args: ["init"], code: 0 }],
  ["toolroute init [--config F] [--workspace D]", {
    args: ["init", "--config", "other/toolroute.json", "--workspace", "other/work"],
    code: 0,
  }],
  ["toolroute tools", { args: ["tools"], code: 0 }],
  ["toolroute tools [--config F] [--user ID] [--json]", {
    args: ["tools", "--config", "toolroute.json", "--json"],
    code: 0,
  }],
  // Named in passing ("`toolroute call` asks on the terminal"): alone, it is misuse.
  ["toolroute call", { args: ["call"], code: 2 }],
  ["toolroute call NAME", { args: ["call", ...READ], code: 0 }],
  ["toolroute call NAME '{…}'", { args: ["call", ...READ], code: 0 }],
  ['toolroute call NAME \'{"json":"args"}\' [--config F] [--user ID] [--timeout MS] [--store F]', {
    args: [
      "call",
      ...READ,
      "--config",
      "toolroute.json",
      "--timeout",
      "5000",
      "--store",
      "state.db",
    ],
    code: 0,
  }],
  ["toolroute call --store …", { args: ["call", ...READ, "--store", "state.db"], code: 0 }],
  ["toolroute flags", { args: ["flags"], code: 0 }],
  ["toolroute flags --config toolroute.json", {
    args: ["flags", "--config", "toolroute.json"],
    code: 0,
  }],
  ["toolroute flags --config /home/me/toolroute.json", {
    args: ["flags", "--config", "DIR/toolroute.json"],
    code: 0,
  }],
  ["toolroute flags --explain", { args: ["flags", "--explain"], code: 0 }],
  ["toolroute flags --http", { args: ["flags", "--http"], code: 0 }],
  ["toolroute flags [--config F] [--http [HOST:PORT]]", {
    args: ["flags", "--config", "toolroute.json", "--http", "127.0.0.1:8787"],
    code: 0,
  }],
  ["toolroute flags --store URL", {
    args: ["flags", "--store", "redis://127.0.0.1:6379"],
    code: 0,
  }],
  ["toolroute flags --audit F --store F", {
    args: ["flags", "--audit", "audit.jsonl", "--store", "state.db"],
    code: 0,
  }],
  // Named in passing ("`toolroute grants` lists and revokes them"): alone, it is misuse.
  ["toolroute grants", { args: ["grants"], code: 2 }],
  ["toolroute grants --store …", { args: ["grants", "ls", "--store", "state.db"], code: 0 }],
  ["toolroute grants ls --store F [--user ID] [--json]", {
    args: ["grants", "ls", "--store", "state.db", "--user", "alice", "--json"],
    code: 0,
  }],
  // A grant the store does not hold: exit 1, as docs/cli.md's exit codes say.
  ["toolroute grants revoke ID --store F", {
    args: ["grants", "revoke", "no-such-grant", "--store", "state.db"],
    code: 1,
  }],
  // init's config has no remote server: nothing to lock, and nothing to differ from.
  ["toolroute lock", { args: ["lock"], code: 0 }],
  ["toolroute lock [--check]", { args: ["lock", "--check"], code: 0 }],
  ["toolroute serve", { serve: [] }],
  ["toolroute serve --config toolroute.json", { serve: ["--config", "toolroute.json"] }],
  ["toolroute serve --workspace $PWD", { serve: ["--workspace", "DIR"] }],
  ["toolroute serve --defer", { serve: ["--defer"] }],
  ["toolroute serve --http", {
    notRun: "serves until stopped; tests/deno/cli/serve_http_test.ts runs it with its flags",
  }],
  [
    "toolroute serve [--config F] [--workspace D] [--stdio \\| --http [HOST:PORT]] [--user ID] [--shared-workspace] [--allow-excess]",
    {
      notRun: "the usage line; its forms run above and in the serve tests",
    },
  ],
  ["toolroute serve [--config toolroute.json] [--stdio | --http 127.0.0.1:8787]", {
    notRun: "the usage line; its forms run above and in the serve tests",
  }],
];

/** Command lines run one after another by the CLI in `dir`, in one process of their own. */
async function runIn(dir: string, lines: string[][]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      fromFileUrl(new URL("./_run_cli_main.ts", import.meta.url)),
      JSON.stringify(lines),
    ],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assertEquals(output.code, 0, decode(output.stderr));
  return JSON.parse(decode(output.stdout)) as { code: number; out: string; err: string }[];
}

/** The `toolroute flags` command line for a `serve` example's arguments. */
function flagsFor(args: string[]): string[] {
  return ["flags", ...args.filter((arg) => arg !== "--defer")];
}

/**
 * `toolroute serve` over stdio with exactly the flags `toolroute flags` printed for it (`printed`,
 * run by `runIn`); stdin closed.
 */
async function serveOnce(
  dir: string,
  args: string[],
  printed: { code: number; out: string; err: string },
) {
  assertEquals(printed.code, 0, printed.err);
  const flags = printed.out.split(" ");
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, "serve", ...args],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return { code: output.code, err: new TextDecoder().decode(output.stderr) };
}

Deno.test("every toolroute command the README and docs/cli.md show is listed here", async () => {
  assertEquals(
    await documentedCommands(),
    EXAMPLES.map(([command]) => command).toSorted(),
    "list a new documented command in EXAMPLES, with how it runs",
  );
});

Deno.test({
  name: "the documented toolroute commands run in a fresh folder with their documented exit codes",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_examples_" }));
    try {
      const failed: string[] = [];
      let ran = 0;
      // In order (init first), runs of in-process commands between the serve runs.
      let batch: [string, string[], number][] = [];
      // `extra` command lines run after the batch, in its process; their results are returned.
      const flush = async (extra: string[][] = []) => {
        if (batch.length === 0 && extra.length === 0) return [];
        const results = await runIn(dir, [...batch.map(([, args]) => args), ...extra]);
        for (const [index, [command, args, documented]] of batch.entries()) {
          const { code, out, err } = results[index];
          if (code !== documented) {
            failed.push(
              `${command} (${
                args.join(" ")
              }): exit ${code}, documented ${documented}\n${out}\n${err}`,
            );
          }
        }
        ran += batch.length;
        const rest = results.slice(batch.length);
        batch = [];
        return rest;
      };
      const serveArgs = (example: { serve: string[] }) =>
        example.serve.map((arg) => arg.replaceAll("DIR", dir));
      // Every serve example's flags, printed in the process of the batch before the first serve
      // (no command after it changes the config): not one process more per example.
      let printedFlags: Map<string, { code: number; out: string; err: string }> | undefined;
      for (const [command, example] of EXAMPLES) {
        if ("notRun" in example) continue;
        if ("serve" in example) {
          if (printedFlags === undefined) {
            const serves = EXAMPLES.flatMap(([, e]) => "serve" in e ? [serveArgs(e)] : []);
            const printed = await flush(serves.map(flagsFor));
            printedFlags = new Map(serves.map((args, i) => [args.join(" "), printed[i]]));
          } else await flush();
          ran++;
          const args = serveArgs(example);
          const { code, err } = await serveOnce(dir, args, printedFlags.get(args.join(" "))!);
          if (code !== 0 || !/\d+ tools exposed/.test(err)) {
            failed.push(`${command}: exit ${code}\n${err}`);
          }
          continue;
        }
        batch.push([command, example.args.map((arg) => arg.replaceAll("DIR", dir)), example.code]);
      }
      await flush();
      assertEquals(failed, []);
      // They ran for real: init's files and the store the calls and grants used are there.
      for (const file of ["toolroute.json", "toolroute.schema.json", "state.db", "other/work"]) {
        await Deno.stat(join(dir, file));
      }
      assert(ran >= 25, `${ran} commands ran`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
