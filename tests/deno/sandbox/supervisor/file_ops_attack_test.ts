// Paths a model can name that C strings and Deno's calls might read differently, sent straight to
// the supervisor's `open` and `put`: a lone surrogate, a newline, a
// backslash, a name of 255 bytes of three-byte characters, one byte over NAME_MAX, a path over
// PATH_MAX, a NUL inside. Each ends as Deno's calls on the host end for the same JS string: the
// same file's bytes, or an error answer (nothing written, no temporary file left), and the session
// serves on.
import { testSession } from "../_test_session.ts";
import { assert, assertEquals } from "@std/assert";
import { skipWithoutBwrap } from "../../../_helpers/bwrap.ts";

const options = { timeoutMs: 10_000, onTimeout: () => new Error("timeout") as never };

Deno.test({
  name:
    "open and put of odd paths (lone surrogate, newline, 255-byte name, over NAME_MAX and PATH_MAX, NUL) act on the file Deno's calls name, or answer an error",
  ignore: skipWithoutBwrap(),
  async fn() {
    const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolroute_oddpath_" }));
    const session = await testSession(ws);
    try {
      const names = [
        "lone\uD800surrogate",
        "new\nline",
        "back\\slash",
        "\u20AC".repeat(85),
        "\u20AC".repeat(85) + "x",
        `${"d".repeat(250)}/`.repeat(17) + "f",
        "nul\0byte",
      ];
      let served = 0;
      for (const [index, name] of names.entries()) {
        const path = `${ws}/${name}`;
        const body = new TextEncoder().encode(`content ${index}`);
        const put = await session.request(
          {
            op: "put",
            path: `${ws}/.tmp-${index}`,
            to: path,
            mode: null,
            identity: null,
            expect: "file-or-absent",
          },
          body,
          options,
        );
        let onHost: Uint8Array | undefined;
        try {
          onHost = Deno.readFileSync(path);
        } catch {
          onHost = undefined;
        }
        if (put.header.ok !== undefined) {
          served++;
          assertEquals(onHost, body, JSON.stringify(name));
        } else {
          assert(put.header.error !== undefined && onHost === undefined, JSON.stringify(name));
        }
        const open = await session.request(
          { op: "open", path, prefetch: 64 * 1024 },
          undefined,
          options,
        );
        if (onHost === undefined) assert(open.header.error !== undefined, JSON.stringify(name));
        else assertEquals(open.body, onHost, JSON.stringify(name));
      }
      // The ordinary names were written, the impossible ones refused; no temporary file left.
      assertEquals(served, 4);
      assertEquals([...Deno.readDirSync(ws)].filter((e) => e.name.startsWith(".tmp-")), []);
      const last = await session.request(
        { op: "open", path: `${ws}/new\nline`, prefetch: 64 * 1024 },
        undefined,
        options,
      );
      assertEquals(new TextDecoder().decode(last.body), "content 1");
    } finally {
      await session.close();
      await Deno.remove(ws, { recursive: true });
    }
  },
});
