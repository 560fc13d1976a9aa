/**
 * A sandboxed stdio server with `network.allow` must be able to speak HTTPS to its allowed hosts:
 * the system's CA certificates (which `SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS` and curl point at)
 * must be there, and `/etc/ssl/private` must not.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ToolRouter } from "../../../mod.ts";
import { createDenoGateway } from "../../../src/deno/mcp/deno_gateway.ts";
import { skipWithoutBwrap } from "../../_helpers/bwrap.ts";
import { fixtureReadOnly, hostileServer } from "./_hostile_world.ts";

const CA_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"];

Deno.test({
  name: "a sandboxed stdio server sees the system's CA certificates, not its private keys",
  ignore: skipWithoutBwrap(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const bundle = CA_BUNDLES.find((path) => {
      try {
        return Deno.statSync(path).isFile;
      } catch {
        return false;
      }
    });
    assert(bundle !== undefined, `the host has a CA bundle (${CA_BUNDLES.join(", ")})`);
    await using gateway = createDenoGateway({
      servers: {
        api: hostileServer({ readOnly: fixtureReadOnly(), network: { allow: ["example.com"] } }),
      },
    });
    const toolSet = await new ToolRouter({ gateway }).expose({ mcpServers: ["api"] });
    assertEquals(toolSet.missing, []);
    // The bundle is longer than one result: its beginning shows it was read.
    const read = await toolSet.invoke("read_file", { path: bundle });
    // Before: NotFound: only a few files of /etc were bound, so no HTTPS client could verify.
    const head = (await Deno.readTextFile(bundle!)).slice(0, 200);
    assert(read.startsWith(`{"ok":true,"text":${JSON.stringify(head).slice(0, -1)}`), read);
    const list = JSON.parse(await toolSet.invoke("read_file", { path: "/etc/ssl/private/x" }));
    assertEquals(list.ok, false);
  },
});
