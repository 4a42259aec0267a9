// One JSON text per value: object keys sorted (UTF-16 code-unit order), no whitespace, `undefined`
// members dropped (as JSON.stringify does). Used where a value is hashed (idempotency request hashes,
// audit-chain payloads), so the hash does not depend on the order keys were written in.
//
// The walk is iterative, with its own stack: a request body reaches it (idempotency), and however
// deeply a value is nested it must never overflow the call stack. A value that contains itself has
// no JSON form and is refused rather than walked forever.

export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
}

/** Text already decided (punctuation, an object key); a container's `close` also leaves the path. */
class Piece {
  constructor(
    readonly text: string,
    readonly closes?: object,
  ) {}
}

const COMMA = new Piece(",");

export function canonicalJson(value: unknown): string {
  let out = "";
  // Popped from the end: a container pushes its closing piece first, then its members in reverse.
  const stack: unknown[] = [value];
  // The containers being written, to refuse a value that contains itself.
  const open = new Set<object>();
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Piece) {
      out += item.text;
      if (item.closes) open.delete(item.closes);
      continue;
    }
    if (item === null) {
      out += "null";
      continue;
    }
    switch (typeof item) {
      case "string":
      case "boolean":
        out += JSON.stringify(item);
        break;
      case "number":
        if (!Number.isFinite(item)) throw new CanonicalJsonError(`no JSON form for ${item}`);
        out += JSON.stringify(item);
        break;
      case "object": {
        if (open.has(item)) throw new CanonicalJsonError("no JSON form for a value that contains itself");
        open.add(item);
        if (Array.isArray(item)) {
          out += "[";
          stack.push(new Piece("]", item));
          for (let i = item.length - 1; i >= 0; i--) {
            stack.push((item[i] as unknown) ?? null);
            if (i > 0) stack.push(COMMA);
          }
          break;
        }
        const entries = Object.entries(item as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        out += "{";
        stack.push(new Piece("}", item));
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, member] = entries[i]!;
          stack.push(member, new Piece(`${JSON.stringify(key)}:`));
          if (i > 0) stack.push(COMMA);
        }
        break;
      }
      default:
        throw new CanonicalJsonError(`no canonical JSON for a ${typeof item}`);
    }
  }
  return out;
}
