// Argument parsers the command modules share (commander's option and argument coercions). A value
// they refuse is a usage error: commander prints the message with the option's name and exits 2.
import { InvalidArgumentError } from "commander";

/** One of `values`, exactly as written. */
export const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): T => {
    const known = values.find((v) => v === value);
    if (known === undefined) throw new InvalidArgumentError(`use one of ${values.join(", ")}`);
    return known;
  };
