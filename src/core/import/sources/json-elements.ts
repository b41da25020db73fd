// The elements of a JSON document's arrays, one at a time, parsed from a byte stream (stream-json's
// tokenizer; each element assembled on its own): a top-level array's elements, or, for a top-level
// object, the elements of each array under its keys (Simkl's `movies`, `shows`, `anime`). Nothing else is
// kept. Memory is bounded by the largest element: one element, and one string, may be at most
// MAX_JSON_ELEMENT_CHARS long, and containers at most MAX_JSON_DEPTH deep; past that the file is refused.
import { chain, none } from 'stream-chain/core';
import { Assembler } from 'stream-json/assembler.js';
import { parser, type Token } from 'stream-json/core/parser.js';
import { ImportFileError } from '../records.ts';
import { JSON_PIECE_BYTES, MAX_JSON_DEPTH, MAX_JSON_ELEMENT_CHARS, mb } from './limits.ts';

export type JsonElement = {
  /** The top-level key holding the array; null when the document is the array. */
  array: string | null;
  /** 0-based position in that array. */
  index: number;
  value: unknown;
};

export type JsonShape = 'array' | 'object';

/**
 * The elements, in document order; returns the top-level keys that held an array (empty ones too).
 * `shapes` says which top-level shapes the caller reads; `where` names the file in error messages.
 * Throws ImportFileError for text that is not JSON or not of those shapes.
 */
export async function* jsonElements(bytes: AsyncIterable<Uint8Array>, opts: { where: string; shapes: JsonShape[]; maxElementChars?: number }): AsyncGenerator<JsonElement, string[]> {
  const arrays: string[] = [];
  const cap = opts.maxElementChars ?? MAX_JSON_ELEMENT_CHARS;
  const where = opts.where;
  // Containers open around the current token: 'a' array, 'o' object.
  const stack: ('a' | 'o')[] = [];
  let shape: JsonShape | null = null;
  let topKey: string | null = null;
  /** The depth at which elements sit: 1 in a top-level array, 2 in an array under a top-level key. */
  let elementDepth = 0;
  let collecting = false;
  let index = -1;
  let assembler: Assembler | null = null;
  let elementChars = 0;
  let stringChars = 0;

  const tooLarge = () => new ImportFileError(`${where}: element ${index + 1}${topKey ? ` of "${topKey}"` : ''} is larger than ${mb(cap)}; not an export this service reads`);
  const done = (value: unknown): JsonElement => {
    assembler = null;
    return { array: shape === 'array' ? null : topKey, index, value };
  };

  const stage = (token: Token): JsonElement | typeof none => {
    const depth = stack.length;
    // Size first, from the streamed pieces (the parser packs a string only once it has all of it).
    if (token.name === 'startString' || token.name === 'startKey') stringChars = 0;
    else if (token.name === 'stringChunk' || token.name === 'numberChunk') {
      stringChars += token.value.length;
      if (stringChars > cap) throw new ImportFileError(`${where}: a text of more than ${mb(cap)}; not an export this service reads`);
      if (assembler) {
        elementChars += token.value.length;
        if (elementChars > cap) throw tooLarge();
      }
      return none;
    }
    if (token.name === 'startObject' || token.name === 'startArray') {
      if (depth >= MAX_JSON_DEPTH) throw new ImportFileError(`${where}: nested more than ${MAX_JSON_DEPTH} deep; not an export this service reads`);
      if (depth === 0) {
        shape = token.name === 'startArray' ? 'array' : 'object';
        if (!opts.shapes.includes(shape)) throw new ImportFileError(`${where}: expected a JSON ${opts.shapes.join(' or an ')}, found an ${shape}`);
        if (shape === 'array') {
          elementDepth = 1;
          collecting = true;
        }
      } else if (shape === 'object' && depth === 1 && token.name === 'startArray') {
        if (topKey !== null) arrays.push(topKey);
        elementDepth = 2;
        collecting = true;
        index = -1;
      }
    }
    if (collecting && depth === elementDepth && !assembler && isValueStart(token)) {
      index++;
      elementChars = 0;
      if (token.name !== 'startObject' && token.name !== 'startArray') return done(scalar(token));
      assembler = new Assembler();
    }
    if (assembler) {
      elementChars++;
      if (elementChars > cap) throw tooLarge();
      assembler.consume(token);
    }
    if (token.name === 'startObject' || token.name === 'startArray') stack.push(token.name === 'startObject' ? 'o' : 'a');
    else if (token.name === 'endObject' || token.name === 'endArray') {
      stack.pop();
      if (collecting && stack.length === elementDepth - 1) collecting = false; // the array itself closed
      if (assembler && stack.length === elementDepth) return done(assembler.current);
    } else if (token.name === 'keyValue' && depth === 1 && shape === 'object') topKey = token.value;
    return none;
  };

  let started = false;
  try {
    for await (const element of chain([parser(), stage])(text(bytes))) {
      started = true;
      yield element as JsonElement;
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`${where} is not valid JSON (${(err as Error).message})`);
  }
  if (shape === null) throw new ImportFileError(started ? `${where} is not valid JSON` : `${where} holds no JSON document`);
  if (stack.length > 0) throw new ImportFileError(`${where} ends in the middle of the document: the file is truncated`);
  return arrays;
}

/** UTF-8 text, in pieces of at most JSON_PIECE_BYTES (a character split across two pieces is kept whole). */
async function* text(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const b of bytes) {
    for (let at = 0; at < b.byteLength; at += JSON_PIECE_BYTES) yield decoder.decode(b.subarray(at, at + JSON_PIECE_BYTES), { stream: true });
  }
  const last = decoder.decode();
  if (last) yield last;
}

const isValueStart = (t: Token) =>
  t.name === 'startObject' || t.name === 'startArray' || t.name === 'stringValue' || t.name === 'numberValue' || t.name === 'nullValue' || t.name === 'trueValue' || t.name === 'falseValue';

function scalar(t: Token): unknown {
  switch (t.name) {
    case 'stringValue':
      return t.value;
    case 'numberValue':
      return Number(t.value);
    case 'nullValue':
      return null;
    case 'trueValue':
      return true;
    case 'falseValue':
      return false;
    default:
      return undefined;
  }
}
