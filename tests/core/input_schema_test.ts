import { assertEquals } from "@std/assert";
import { z } from "zod";
import type { InferArgs, InputSchema } from "../../mod.ts";

Deno.test("InputSchema accepts a zod object and InferArgs gives its parsed type", () => {
  const schema = z.object({ n: z.coerce.number(), tags: z.array(z.string()).default([]) });
  const accepted: InputSchema = schema;
  const args: InferArgs<typeof schema> = { n: 1, tags: [] };
  // @ts-expect-error: n is a number after parsing, so a string is a type error.
  const wrong: InferArgs<typeof schema> = { n: "1", tags: [] };
  assertEquals([accepted === schema, args.n, typeof wrong], [true, 1, "object"]);
});
