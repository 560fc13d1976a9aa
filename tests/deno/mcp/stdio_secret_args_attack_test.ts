/**
 * A stdio server's secret arguments (`secretArgs`, such as a VS Code input's answer) stay out of
 * what the host logs, not only out of results: the warning that a server runs unconfined names
 * its command line.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl, join } from "@std/path";
import type { McpGatewayEvent } from "../../../src/core/mcp/mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { ToolRouter } from "../../../mod.ts";

const FIXTURE = fromFileUrl(new URL("../../_fixtures/stdio_server.ts", import.meta.url));
const REPO = fromFileUrl(new URL("../../../", import.meta.url)).replace(/\/$/, "");

/** A PATH with `bash` and `sh` but no `bwrap`: a machine without bubblewrap. */
async function pathWithoutBwrap(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  for (const program of ["bash", "sh"]) {
    const real = new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).outputSync();
    await Deno.symlink(new TextDecoder().decode(real.stdout).trim(), join(bin, program));
  }
  return bin;
}

Deno.test("the unconfined warning shows a server's secret arguments redacted, short ones too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolroute_secret_args_" });
  const hostPath = Deno.env.get("PATH");
  const long = "pw-0123456789-secret";
  const short = "hunt3r"; // under the length a result's redaction looks for
  try {
    const path = await pathWithoutBwrap(dir);
    // bubblewrap is looked for on the host's PATH too.
    Deno.env.set("PATH", path);
    const events: McpGatewayEvent[] = [];
    const args = ["run", "--frozen", "--allow-read", "--allow-env", FIXTURE];
    await using gateway = createDenoGateway({
      servers: {
        db: {
          command: Deno.execPath(),
          args: [...args, `--password=${long}`, short],
          secretArgs: [args.length, args.length + 1],
          cwd: REPO,
          env: { PATH: path },
        },
      },
      onEvent: (event) => events.push(event),
    });
    const tools = await new ToolRouter({ gateway }).expose({ mcpServers: ["db"] });
    // The server ran unconfined with both arguments (its argv echo shows the long one redacted,
    // and the short one as it is: a result's redaction skips short values by design) ...
    const argv = String(await tools.invoke("argv", {}));
    assertStringIncludes(argv, "[redacted]");
    assertStringIncludes(argv, short);
    const warnings = events.filter((event) => event.type === "unconfined");
    assertEquals(warnings.length, 1, "the warning was given");
    const message = warnings[0].message!;
    assertStringIncludes(message, "runs unconfined");
    assertStringIncludes(message, FIXTURE);
    // ... and the warning, which the CLI prints and a host may log, holds neither secret.
    assert(!message.includes(long), message);
    assert(!message.includes(short), message);
    assertStringIncludes(message, "[redacted] [redacted]");
  } finally {
    if (hostPath !== undefined) Deno.env.set("PATH", hostPath);
    await Deno.remove(dir, { recursive: true });
  }
});
