/**
 * A zod 4 object schema, described by the Standard Schema interface zod implements, so the
 * public API names no zod type. Tools take `z.object({...})` here.
 */
export interface InputSchema<Output = unknown> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The Standard Schema version. */
    readonly version: 1;
    /** The library, `"zod"`. */
    readonly vendor: string;
    /** Validates a value. */
    readonly validate: (value: unknown) => unknown;
    /** The input and output types, for inference only. */
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/** The type of the arguments a tool with input schema `S` receives. */
export type InferArgs<S extends InputSchema> = NonNullable<S["~standard"]["types"]>["output"];
