/**
 * The spellings one secret may take in text median-dev shows or stores: as
 * is, JSON-escaped, URL-encoded, base64 and base64url (inside a longer base64
 * text too, at each of the three byte alignments: `Basic` credentials, a JWT
 * segment), and for a hex secret its other case and the base64 of its bytes
 * (the derived signing secret and MEDIAN_TOOL_SECRET are 32 bytes usually
 * written as 64 hex characters).
 *
 * Every spelling is a plain string to find; the masker finds them all and
 * masks the union of where they are.
 */

/** Hex text of whole bytes: also spelled in the other case, and as base64 of the bytes. */
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
/** A spelling shorter than this would mask ordinary text (base64 fragments of short secrets). */
const MIN_SPELLING_LENGTH = 8;

/** base64 without padding, or its URL-safe alphabet. */
function base64(bytes: Buffer, urlSafe: boolean): string {
  // Stryker disable next-line Regex: base64 has "=" only at its end, so the anchor changes nothing.
  const text = bytes.toString('base64').replace(/=+$/, '');
  return urlSafe ? text.replaceAll('+', '-').replaceAll('/', '_') : text;
}

/**
 * The base64 characters that depend only on `bytes`, wherever they sit in a
 * longer byte string: for each alignment (0, 1 or 2 bytes before them in their
 * group of three), the characters whose six bits all come from `bytes`.
 */
function base64Cores(bytes: Buffer, urlSafe: boolean): string[] {
  const cores: string[] = [];
  // Stryker disable next-line EqualityOperator: three bytes before are a whole group, the same core as none; the Set drops the copy.
  for (let before = 0; before < 3; before++) {
    const padded = Buffer.concat([Buffer.alloc(before), bytes]);
    const text = base64(padded, urlSafe);
    const firstBit = before * 8;
    const endBit = (before + bytes.length) * 8;
    const from = Math.ceil(firstBit / 6);
    const to = Math.floor(endBit / 6); // exclusive: character i covers bits 6i … 6i+5
    cores.push(text.slice(from, to));
  }
  return cores;
}

function byteSpellings(bytes: Buffer): string[] {
  return [
    bytes.toString('base64'),
    base64(bytes, true),
    ...base64Cores(bytes, false),
    ...base64Cores(bytes, true),
  ];
}

/** A surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` URL-encoded. encodeURIComponent throws on a lone surrogate (text
 * from a JSON body can hold one, e.g. `"\ud800"`); URL encoders write it as
 * U+FFFD, so it is spelled that way here.
 */
export function urlEncodedSpelling(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));
}

/** Every spelling of `secret`, longest first, without duplicates or pieces too short to mask. */
export function secretSpellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  // JSON may also escape every non-ASCII character (`\u00e9`) and the slash (`\/`).
  const asciiJson = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const forms = new Set<string>([secret, json, asciiJson, asciiJson.replaceAll('/', '\\/'), urlEncodedSpelling(secret)]);
  // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as its default, utf8.
  for (const form of byteSpellings(Buffer.from(secret, 'utf8'))) forms.add(form);
  if (HEX.test(secret)) {
    for (const cased of [secret.toLowerCase(), secret.toUpperCase()]) {
      forms.add(cased);
      // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as its default, utf8.
      for (const form of byteSpellings(Buffer.from(cased, 'utf8'))) forms.add(form);
    }
    for (const form of byteSpellings(Buffer.from(secret, 'hex'))) forms.add(form);
  }
  return [...forms].filter((form) => form.length >= MIN_SPELLING_LENGTH).sort((a, b) => b.length - a.length);
}
