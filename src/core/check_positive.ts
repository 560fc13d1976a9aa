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
