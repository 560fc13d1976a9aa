/**
 * Writes `toolroute.schema.json` from the zod schema of the config: `deno task schema`.
 * A test fails when the committed file differs from what this writes.
 *
 * @module
 */
import { toolrouteJsonSchema } from "./config_schema.ts";

/**
 * The text of `toolroute.schema.json`.
 *
 * @returns The JSON Schema, pretty-printed, with a final newline.
 */
export function configSchemaText(): string {
  return JSON.stringify(toolrouteJsonSchema(), null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile("toolroute.schema.json", configSchemaText());
}
