import { assert, assertEquals } from "@std/assert";
import { resolveBuiltinContext } from "@toolroute/toolroute/deno";
import {
  listInSandbox,
  readInSandbox,
} from "../../../../src/deno/builtins/search/sandboxed_search.ts";
import { SearchBudget } from "../../../../src/deno/builtins/search/search_budget.ts";
import { walkTree } from "../../../../src/deno/builtins/search/walk_tree.ts";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";
import { makeFixture, SECRET } from "../_fixture.ts";
import { run, sandboxed, searchTools, writeTree } from "./_search_fixture.ts";

const budget = () => new SearchBudget(new AbortController().signal, 30_000, 1_000_000);

Deno.test({
  name:
    "readInSandbox cannot follow a folder swapped for a symlink to the outside after the listing",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const ctx = resolveBuiltinContext(sandboxed(f.context));
    await writeTree(f.workspace, { "d/secret.txt": "inside\n" });
    const view = await listInSandbox(ctx, f.workspace, {
      start: "",
      gitignore: true,
      budget: budget(),
    });
    const files: string[] = [];
    await walkTree(view, { start: "", gitignore: true, budget: budget() }, (path) => {
      files.push(path);
    });
    assertEquals(files, ["d/secret.txt", "hello.txt"]);
    // The swap a racing sandboxed command would make, done deterministically between the steps.
    await Deno.rename(`${f.workspace}/d`, `${f.workspace}/d.away`);
    await Deno.symlink(f.outside, `${f.workspace}/d`);
    assert((await Deno.lstat(`${f.workspace}/d`)).isSymlink, "the swap happened");
    const read: string[] = [];
    await readInSandbox(
      ctx,
      f.workspace,
      { files, maxBytes: 1 << 20, budget: budget() },
      (path, data) => {
        read.push(`${path}=${new TextDecoder().decode(data)}`);
      },
    );
    assertEquals(read, ["hello.txt=hello\nworld\n"]);
    assert(!read.join().includes(SECRET));
  },
});

Deno.test({
  name: "glob and grep in the sandbox handle long names and names with newlines and spaces",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    const long = `${"n".repeat(120)}/${"m".repeat(150)}.txt`;
    await writeTree(f.workspace, { [long]: "needle\n", "odd/we\nird name.txt": "needle\n" });
    await using s = await searchTools(sandboxed(f.context));
    const listed = await run<{ paths: string[] }>(s.tools, "glob", { pattern: "**/*.txt" });
    assertEquals(listed.paths, ["hello.txt", long, "odd/we\nird name.txt"]);
    const found = await run<{ matches: { path: string }[] }>(s.tools, "grep", {
      pattern: "needle",
    });
    assertEquals(found.matches.map((m) => m.path), [long, "odd/we\nird name.txt"]);
  },
});

Deno.test({
  name: "grep in the sandbox stops at the deadline and when the call is aborted",
  ignore: skipWithoutBwrap(),
  fn: async () => {
    await using f = await makeFixture();
    await writeTree(f.workspace, { "a.txt": "x\n" });
    const ctx = resolveBuiltinContext(sandboxed(f.context));
    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    const aborted = new SearchBudget(controller.signal, 30_000, 1000);
    const error = await listInSandbox(ctx, f.workspace, {
      start: "",
      gitignore: false,
      budget: aborted,
    }).then(() => undefined, (e) => e);
    assertEquals(error?.message, "caller gave up");
    const late = new SearchBudget(new AbortController().signal, 1, 1000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const timeout = await listInSandbox(ctx, f.workspace, {
      start: "",
      gitignore: false,
      budget: late,
    })
      .then(() => undefined, (e) => e);
    assertEquals(timeout?.code, "timeout");
  },
});
