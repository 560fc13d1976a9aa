import { assert } from "@std/assert";
import { ToolRouter } from "@toolroute/toolroute";
import { builtinTools } from "@toolroute/toolroute/deno";

const SECRET = "RACE-OUTSIDE-SECRET-0c4d";
// Made with the file's full permissions; the test narrows them to the exact flags of the context.
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_race_" }));
const workspace = `${base}/ws`;
const outside = `${base}/out`;
await Deno.mkdir(`${workspace}/d`, { recursive: true });
await Deno.mkdir(outside);
await Deno.writeTextFile(`${workspace}/d/secret.txt`, "inside\n");
await Deno.writeTextFile(`${outside}/secret.txt`, `${SECRET}\n`);
await Deno.symlink(outside, `${workspace}/lnk`);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

Deno.test({
  name: "swapping a directory for a symlink during reads and writes never reaches outside",
  permissions: { read: [workspace], write: [workspace], run: ["perl"] },
  async fn() {
    // A concurrent process (think: a background command) flips `d` between the real directory
    // and a symlink to the outside directory as fast as it can.
    const racer = new Deno.Command("perl", {
      args: [
        "-e",
        'while(1){rename "d","dsave"; rename "lnk","d"; rename "d","lnk"; rename "dsave","d";}',
      ],
      cwd: workspace,
      stdout: "null",
      stderr: "null",
    }).spawn();
    await using router = new ToolRouter({ builtins: builtinTools({ workspace }) });
    const tools = await router.expose({ builtins: ["read_file", "write_file", "apply_patch"] });
    let reads = 0;
    try {
      const until = performance.now() + 1500;
      for (let i = 0; performance.now() < until; i++) {
        const read = await tools.call("read_file", { path: "d/secret.txt" });
        if (!read.isError) reads++;
        assert(!read.text.includes(SECRET), `read ${i} leaked: ${read.text}`);
        await tools.call("write_file", { path: `d/w${i}.txt`, content: "PWN" });
        await tools.call("apply_patch", {
          patch: `*** Begin Patch\n*** Add File: d/p${i}.txt\n+PWN\n*** End Patch`,
        });
        // A pure insertion applies to any content: reading the outside file here would copy it in.
        await tools.call("apply_patch", {
          patch:
            "*** Begin Patch\n*** Update File: d/secret.txt\n@@\n+x\n*** End of File\n*** End Patch",
        });
      }
    } finally {
      racer.kill("SIGKILL");
      await racer.status;
    }
    assert(reads > 0, "some reads happened while the directory was in place");
    // Nothing with content reached the outside directory (a refused, empty temporary file may).
    // The test may not read there itself, so perl lists it.
    const listing = await new Deno.Command("perl", {
      args: [
        "-e",
        'opendir(D, $ARGV[0]); for (readdir(D)) { print "$_ ", -s "$ARGV[0]/$_" || 0, "\\n" }',
        outside,
      ],
    }).output();
    const files = new TextDecoder().decode(listing.stdout).trim().split("\n")
      .map((line) => line.split(" ")).filter(([name]) => ![".", "..", "secret.txt"].includes(name));
    for (const [name, size] of files) {
      assert(name.startsWith(".") && size === "0", `${name} (${size} bytes) was written outside`);
    }
    const secret = await new Deno.Command("perl", {
      args: ["-e", "open(F, $ARGV[0]); print <F>", `${outside}/secret.txt`],
    }).output();
    assert(new TextDecoder().decode(secret.stdout) === `${SECRET}\n`, "the outside file is intact");
  },
});
