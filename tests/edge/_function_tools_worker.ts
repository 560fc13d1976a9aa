/**
 * A worker that uses only function tools: `workerd_test.ts` bundles it to show that such a
 * worker carries no MCP SDK client (mounting an SDK server is the `./mcp` entry's).
 *
 * @module
 */

import { defineTool, ToolRouter } from "../../mod.ts";
import * as z from "zod";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

const router = new ToolRouter();
router.addFunction(add);

export default {
  /** Answers a call of `add` with its JSON arguments from the request body. */
  async fetch(request: Request): Promise<Response> {
    const tools = await router.expose({ functions: ["add"] });
    const result = await tools.invoke("add", await request.text());
    return Response.json(result);
  },
};
