/**
 * Throws a `RangeError` for a host's option that is set but not a positive finite number (with
 * `min`: not a whole number of at least `min`).
 *
 * @param options `where` the option was given (default `Cannot create router`), and `min`.
 */
export function checkPositive(
  value: unknown,
  name: string,
  options: { where?: string; min?: number } = {},
): void {
  const { where = "Cannot create router", min } = options;
  if (value === undefined) return;
  const fits = min === undefined
    ? typeof value === "number" && value > 0 && Number.isFinite(value)
    : Number.isInteger(value) && (value as number) >= min;
  if (fits) return;
  const what = min === undefined ? "a positive number" : `a whole number ≥ ${min}`;
  throw new RangeError(`${where}: "${name}" must be ${what}, received ${String(value)}`);
}

/**
 * A host's number option, or `fallback` when it is not set; a `RangeError` when it is set but not
 * a finite number of at least `min`.
 */
export function numberAtLeast(
  value: unknown,
  name: string,
  options: { where: string; min: number; fallback: number },
): number {
  const { where, min, fallback } = options;
  if (value === undefined) return fallback;
  if (typeof value === "number" && value >= min && value !== Infinity) return value;
  throw new RangeError(
    `${where}: "${name}" must be a finite number of at least ${min}, received ${String(value)}`,
  );
}
