/**
 * The function tools of `serve_soak.ts`, loaded by serve as a config module: `soak_echo` (short
 * answers), `soak_big` (an answer far over the soak's result budget, so it is cut and kept behind
 * a `read_result` handle) and `soak_guarded` (the soak's policy asks before it runs).
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../mod.ts";

export const echo = defineTool({
  name: "soak_echo",
  description: "Echoes text",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

export const big = defineTool({
  name: "soak_big",
  description: "Answers a long text",
  input: z.object({ seed: z.string() }),
  run: ({ seed }) => `${seed} `.repeat(500),
});

export const guarded = defineTool({
  name: "soak_guarded",
  description: "Runs only when a person approves",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
