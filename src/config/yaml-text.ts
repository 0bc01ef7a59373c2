// A YAML document as JSON values, its nesting bounded before the parser builds anything: the
// lexer's tokens go to the parser one by one, and a document whose depth passes MAX_DEPTH
// is refused at that token (a million "[" took 13 s and gigabytes in the parser, then the
// process died). Runs in the parse thread (src/workers/parse-worker.ts).
import { CST, Composer, Lexer, LineCounter, Parser, type Document } from 'yaml';
import { FwError } from '../errors';
import { MAX_DEPTH, tooDeep } from './document-text';
import { NOT_SIMPLE, parseSimpleYaml } from './yaml-fast';

/** Aliases resolved at most (the yaml library's guard against "billion laughs" documents) */
const MAX_ALIAS_COUNT = 100;

/**
 * An upper bound of the nesting depth at each token, from the lexer's tokens alone: flow
 * collections ("[", "{") counted exactly; block collections by the indentation levels open
 * (a stack, as Python's tokenizer keeps) plus the indicators ("-", "?", ":") on the line, as
 * a block collection nests either deeper indented or after an indicator on the same line
 * ("- - x", "- a: b"). It may count a level twice, never one less.
 */
class DepthBound {
  private flow = 0;
  private readonly indents: number[] = [];
  private indicators = 0;
  private lineIndent = 0;
  private atLineStart = true;

  /** The bound after the token of this type, or null when it is not content. */
  next(type: string, source: string): number | null {
    if (type === 'newline') {
      this.atLineStart = true;
      this.lineIndent = 0;
      this.indicators = 0;
      return null;
    }
    if (type === 'space' || type === 'comment') {
      if (type === 'space' && this.atLineStart) this.lineIndent += source.length;
      return null;
    }
    if (this.atLineStart && this.flow === 0) this.openLine();
    this.atLineStart = false;
    if (type === 'flow-seq-start' || type === 'flow-map-start') this.flow++;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && this.flow > 0) this.flow--;
    else if (this.flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) this.indicators++;
    return this.indents.length + this.indicators + this.flow;
  }

  /** The first content of a line: the levels indented less deeply stay open. */
  private openLine(): void {
    while (this.indents.length > 0 && this.indents[this.indents.length - 1] > this.lineIndent) this.indents.pop();
    if (this.indents.length === 0 || this.indents[this.indents.length - 1] < this.lineIndent) this.indents.push(this.lineIndent);
  }
}

/** The parser's tokens of `text`, refused (ERR_NET_1004) once the nesting passes MAX_DEPTH. */
function* boundedTokens(parser: Parser, text: string, lines: LineCounter): Generator<CST.Token> {
  const bound = new DepthBound();
  lines.addNewLine(0);
  let offset = 0;
  let scalarNext = false; // the token after the lexer's scalar mark is a scalar's text
  for (const lexeme of new Lexer().lex(text)) {
    const type: string = scalarNext ? 'scalar-text' : CST.tokenType(lexeme) ?? 'error';
    scalarNext = type === 'scalar';
    const depth = bound.next(type, lexeme);
    if (depth !== null && depth > MAX_DEPTH) {
      const { line, col } = lines.linePos(offset);
      throw tooDeep(`line ${line}, column ${col}`);
    }
    yield* parser.next(lexeme);
    offset += lexeme.length;
  }
  yield* parser.end();
}

/** The document of `text` (one at most), or ERR_NET_1004 with the first problem and its place. */
function composed(text: string): Document.Parsed {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  let doc: Document.Parsed | null = null;
  for (const d of new Composer().compose(boundedTokens(parser, text, lines), true, text.length)) {
    if (doc !== null) throw new FwError('ERR_NET_1004', 'malformed YAML: the body holds more than one document');
    doc = d;
  }
  const first = doc!.errors[0];
  if (first) {
    const { line, col } = lines.linePos(first.pos[0]);
    throw new FwError('ERR_NET_1004', `malformed YAML: ${first.message.split('\n')[0]} at line ${line}, column ${col}`);
  }
  return doc!;
}

/** The values of a YAML document (toJS: strings, numbers, booleans, null, arrays, plain objects), or 400 ERR_NET_1004. */
export function yamlValue(text: string): unknown {
  const fast = simpleValue(text);
  if (fast !== NOT_SIMPLE) return fast;
  const doc = composed(text);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? null;
  } catch (e) {
    throw new FwError('ERR_NET_1004', `malformed YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * The export's subset of YAML read at JSON's pace (yaml-fast.ts, whose result is always the
 * library's), or NOT_SIMPLE: for anything else, and for a document nested near MAX_DEPTH or
 * past it (a reader that recursed too deep included), which the bounded path above refuses
 * with the line and column where the bound was passed.
 */
function simpleValue(text: string): unknown {
  try {
    const value = parseSimpleYaml(text);
    return value !== NOT_SIMPLE && nestedWithin(value, MAX_DEPTH - 1) ? value : NOT_SIMPLE;
  } catch {
    return NOT_SIMPLE;
  }
}

function nestedWithin(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (levels === 0) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (!nestedWithin(v, levels - 1)) return false;
  return true;
}
