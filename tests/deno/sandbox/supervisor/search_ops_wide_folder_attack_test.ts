// Outside attack on the supervisor's listing walk (s36, attack3): since e225f6d it keeps the
// folders to visit on a stack and put a folder's subfolders back in order with
// `stack.push(...stack.splice(below).reverse())`. Spreading more than about 120,000 arguments
// throws (`RangeError: Maximum call stack size exceeded`): a model's command that makes one
// folder of that many subfolders (`seq 140000 | xargs mkdir`, after the session started, so the
// start's 50,000-folder check never sees them) made every sandboxed glob and grep entering it
// fail ("The search failed in the sandbox"), while the same tree is searched in process. Seen
// through a real sandbox by hand; here the operation runs in process with the folder's listing
// served by a stand-in for `Deno.readDirSync` (140,000 real folders take seconds and disk).
import { assert, assertEquals } from "@std/assert";
import { searchOps } from "../../../../src/deno/sandbox/supervisor/search_ops.ts";
import type { SupervisorContext } from "../../../../src/deno/sandbox/supervisor/supervisor_context.ts";

Deno.test("the supervisor lists a folder of 150,000 subfolders and walks on after it", async () => {
  const root = await Deno.makeTempDir({ prefix: "toolroute_wide_" });
  try {
    await Deno.mkdir(`${root}/wide`);
    await Deno.mkdir(`${root}/zz`);
    await Deno.writeTextFile(`${root}/zz/after.txt`, "after\n");
    const frames: { header: Record<string, unknown>; body: string }[] = [];
    const context: SupervisorContext = {
      send(header, body = new Uint8Array()) {
        frames.push({
          header: header as Record<string, unknown>,
          body: new TextDecoder().decode(body),
        });
        return Promise.resolve();
      },
      processIds: () => [],
      kill: () => {},
      cgroups: [],
    };
    const wide = 150_000;
    const entry = (name: string): Deno.DirEntry => ({
      name,
      isDirectory: true,
      isFile: false,
      isSymlink: false,
    });
    const real = Deno.readDirSync;
    let served = 0;
    let below = 0;
    Deno.readDirSync = (path: string | URL) => {
      const at = String(path);
      if (at === `${root}/wide`) {
        served = wide;
        return Array.from({ length: wide }, (_, i) => entry(`d${i}`))[Symbol.iterator]();
      }
      if (at.startsWith(`${root}/wide/`)) {
        below++;
        return [][Symbol.iterator]();
      }
      return real(path);
    };
    try {
      const { list } = searchOps(context);
      await list!(
        {
          op: "list",
          id: 7,
          root,
          start: "",
          maxDepth: null,
          gitignore: false,
          name: "",
          only: "",
          parents: [],
          timeoutMs: 600_000,
        } as never,
        new Uint8Array(),
      );
    } finally {
      Deno.readDirSync = real;
    }
    // The attack reached the seam: the wide folder was listed, and its subfolders were pushed.
    assertEquals(served, wide);
    const final = frames.at(-1)!.header;
    assertEquals(final, { id: 7, ok: { stopped: null } });
    // Every subfolder was visited, and the walk went on to the folders after it.
    assertEquals(below, wide);
    const records = frames.filter((frame) => frame.header.stream === 1).map((frame) => frame.body)
      .join("").split("\0");
    assert(records.includes("fzz/after.txt"), "the file after the wide folder is missing");
    assert(records.includes(`dwide/d${wide - 1}`));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
