import { DefaultJsonSchemaValidator } from "../../mcp_sdk.ts";
import type { McpJsonSchemaValidation, McpJsonSchemaValidator } from "../../mcp_transport.ts";

type Validate = (input: unknown) => McpJsonSchemaValidation<unknown>;

/** Options of {@linkcode SharedSchemaValidator}. */
export interface SharedSchemaValidatorOptions {
  /** Most compiled schemas kept; the least recently used goes first. Default: 2000. */
  maxSchemas?: number;
}

/**
 * One JSON Schema validator for every connection of a gateway, with one compiled validator per
 * distinct schema: a thousand users of one server share the validator of each tool's output
 * schema instead of compiling it a thousand times (each SDK `Client` otherwise builds its own ajv,
 * which holds memory before it compiles anything). Schemas are told apart by their JSON text, so
 * definitions that differ between users stay apart. A schema that declares an `$id` is compiled
 * on an ajv of its own (more memory than one on the shared ajv, for the rare schema with an id):
 * ajv hands the schema it first compiled under an id to every later schema of that id, whoever's
 * server listed it.
 *
 * The SDK's runtime default is the default, made on first use: ajv on Deno and Node.js (ajv
 * compiles with `new Function`, which edge runtimes refuse: a browser or workerd build gets the
 * SDK's cfworker validator instead). Because ajv keeps every schema it compiled, the default one
 * is replaced once it has compiled many more schemas than are kept.
 */
export class SharedSchemaValidator implements McpJsonSchemaValidator {
  #given: McpJsonSchemaValidator | undefined;
  #ajv: McpJsonSchemaValidator | undefined;
  #compiledByAjv = 0;
  #cache = new Map<string, Validate>();
  #max: number;

  /**
   * Creates the validator.
   *
   * @param inner The validator to share; default: the SDK's ajv validator.
   * @param options The cache bound.
   */
  constructor(inner?: McpJsonSchemaValidator, options: SharedSchemaValidatorOptions = {}) {
    this.#given = inner;
    this.#max = options.maxSchemas ?? 2000;
  }

  /** How many compiled validators are kept now (for tests and status). */
  get size(): number {
    return this.#cache.size;
  }

  /**
   * The validating function of a schema, compiled once per distinct schema.
   *
   * @param schema The JSON Schema.
   * @returns A function that validates one value.
   */
  getValidator<T>(schema: Record<string, unknown>): (input: unknown) => McpJsonSchemaValidation<T> {
    const key = JSON.stringify(schema);
    let validate = this.#cache.get(key);
    if (validate !== undefined) {
      this.#cache.delete(key); // re-inserted below: most recently used last
    } else {
      // A copy: validators may annotate the schema they compile (cfworker's marks resolved ids on
      // it), and the listed definitions they get here are frozen and shared between users.
      // ajv names a schema by its `$id` for all it compiles, and hands the first schema of an id
      // to every later one: a server's `$id` would decide how another server's results are
      // checked (another user's too). A schema that declares one gets an ajv of its own.
      const own = this.#given === undefined && key.includes('"$id"');
      const engine = own
        ? new DefaultJsonSchemaValidator() as McpJsonSchemaValidator
        : this.#inner();
      validate = engine.getValidator<unknown>(structuredClone(schema));
      if (this.#given === undefined && !own) this.#compiledByAjv++;
      if (this.#cache.size >= this.#max) this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(key, validate);
    return validate as (input: unknown) => McpJsonSchemaValidation<T>;
  }

  #inner(): McpJsonSchemaValidator {
    if (this.#given !== undefined) return this.#given;
    if (this.#ajv === undefined || this.#compiledByAjv > 4 * this.#max) {
      this.#ajv = new DefaultJsonSchemaValidator() as unknown as McpJsonSchemaValidator;
      this.#compiledByAjv = 0;
    }
    return this.#ajv;
  }
}
