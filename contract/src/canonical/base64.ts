// Strict standard base64 (RFC 4648 section 4, padded), shared by the canonical forms. Node's own decoder
// skips characters it does not know and accepts missing padding, so two different texts could decode
// to one key or signature; SDKs in other languages would disagree on such input. Internal module.

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of `text` if it is canonical padded standard base64 (the only encoding of its bytes),
 * otherwise `undefined`. The round trip rejects non-zero unused bits in the last character.
 */
export function decodeStrictBase64(text: unknown): Buffer | undefined {
  if (typeof text !== "string" || !STANDARD_BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : undefined;
}
