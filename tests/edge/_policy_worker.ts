/**
 * A test worker that proves policies, signed approvals and `callAll` in workerd: it exposes two
 * function tools under a policy, asks, approves, tampers, resumes in a fresh router and runs a
 * batch, and answers what happened as JSON (or `{ error }` with status 500).
 *
 * @module
 */

import { defineTool, ToolRouter } from "../../mod.ts";
import { z } from "zod";

export default {
  /**
   * Runs the policy scenario with fresh routers.
   *
   * @returns The JSON answer.
   */
  async fetch(): Promise<Response> {
    try {
      const notes: string[] = [];
      const write = defineTool({
        name: "write_note",
        description: "Writes a note",
        input: z.object({ text: z.string() }),
        run: ({ text }) => {
          notes.push(text);
          return "written";
        },
      });
      const read = defineTool({
        name: "read_notes",
        description: "Reads the notes",
        input: z.object({}),
        run: () => notes.join(","),
      });
      const drop = defineTool({
        name: "drop_notes",
        description: "Never exposed",
        input: z.object({}),
        run: () => "dropped",
      });
      const options = {
        functions: [write, read, drop],
        policy: { deny: ["drop_*", "write_note(text=secret*)"], ask: ["write_note"] },
        approvalSecret: "edge secret of sixteen bytes or more",
      };
      const router = new ToolRouter(options);
      const toolSet = await router.expose({
        functions: ["write_note", "read_notes", "drop_notes"],
      });
      const denied = await toolSet.call("write_note", { text: "secret plans" });
      const asked = await toolSet.call("write_note", { text: "a" });
      const tampered = await toolSet.approve({
        ...asked.approval!,
        arguments: { text: "b" },
      });
      const fresh = new ToolRouter(options);
      const resumed = await fresh.resume(JSON.parse(JSON.stringify(asked.approval)), {
        approved: true,
      });
      const reused = await fresh.resume(asked.approval!, { approved: true });
      const batch = await toolSet.callAll([
        { name: "read_notes", arguments: {}, id: "1" },
        { name: "drop_notes", arguments: {}, id: "2" },
      ]);
      return Response.json({
        names: toolSet.names,
        missing: toolSet.missing.map((entry) => entry.name),
        codes: [denied.code, asked.code, tampered.code, resumed.text, reused.code],
        batch: batch.map((result) => [result.id, result.code ?? result.text]),
      });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    }
  },
};
