import { z } from "zod";
import { defineTool, ToolRouter, type ToolSet } from "../../../../mod.ts";

const whoami = defineTool({
  name: "whoami",
  description: "The user of the request",
  input: z.object({}),
  run: (_args, ctx) => ctx.userId ?? "nobody",
});
const router = new ToolRouter({ functions: [whoami] });

/** The tools of one request: `whoami` alone, answering with the request's user. */
export function whoamiProvider(request: { userId?: string }): Promise<ToolSet> {
  return router.expose({ functions: ["whoami"], userId: request.userId });
}
