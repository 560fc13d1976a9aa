/**
 * The function tool the interleaved call benchmarks call: a strict schema, a result after one
 * microtask, so a call's cost is the router's.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../mod.ts";

/** `forecast {city, days}`. */
export const forecast = defineTool({
  name: "forecast",
  description: "Forecast",
  input: z.object({ city: z.string(), days: z.number().int().min(1).max(14) }).strict(),
  run: async ({ city, days }) => {
    await null;
    return { city, days, sky: "clear" };
  },
});

/** The arguments every benchmark call sends, as a model would: JSON text. */
export const FORECAST_ARGS = '{"city":"Oslo","days":3}';
