// The parse thread of YAML bodies (PUT /api/config/candidate). YAML parsing is ~30 times
// slower than JSON's and takes ~100 bytes of memory a byte (an 8 MB document: 27 s and ~800 MB
// on the HTTP thread, which then answered nothing): here it runs in one piscina thread whose
// heap is capped, so a document that needs more ends that thread (413), never the process.
// The HTTP thread gets the value back as JSON text in pieces (config/json-pieces.ts).
// A large JSON body (a bulk load, issue 38) is parsed in a second thread of the same kind: its
// JSON.parse and checks held the HTTP thread 0.35-1.3 s for 15 MB; the value comes back in
// pieces the HTTP thread parses in slices (config/json-pieces.ts).
import path from 'node:path';
import { Piscina } from 'piscina';
import { ERRORS, FwError, type ErrorCode } from '../errors';
import { parseJsonText } from '../config/document-text';
import { joinJson } from '../config/json-pieces';
import type { ParseReply, ParseTask } from './parse-worker';

/** JSON bodies from this size are parsed in the JSON parse thread (below, a few milliseconds on the HTTP thread). */
export const THREAD_JSON_BYTES = 512 * 1024;

/** The JSON parse thread's heap for bodies up to `maxBytes`: the text, the value and its pieces, ~16 bytes a byte. */
export function jsonHeapMb(maxBytes: number): number {
  return 64 + Math.ceil((16 * maxBytes) / (1024 * 1024));
}

/** The parse thread's heap for YAML bodies up to `maxYamlBytes`: 100 bytes a byte, plus room for the thread itself. */
export function parseHeapMb(maxYamlBytes: number): number {
  return 64 + Math.ceil((100 * maxYamlBytes) / (1024 * 1024));
}

export class ParsePool {
  private readonly pool: Piscina<ParseTask, ParseReply>;
  private readonly jsonPool: Piscina<ParseTask, ParseReply>;

  /** `maxJsonBytes`: the largest JSON body the thread is given (FW_MAX_LOAD_BODY), which sizes its heap. */
  constructor(private readonly maxYamlBytes: number, maxJsonBytes = 64 * 1024 * 1024) {
    this.jsonPool = new Piscina<ParseTask, ParseReply>({
      filename: path.join(__dirname, 'parse-worker.js'),
      name: 'parseJson',
      minThreads: 0,
      maxThreads: 1,
      maxQueue: 4,
      idleTimeout: 10_000,
      resourceLimits: { maxOldGenerationSizeMb: jsonHeapMb(maxJsonBytes), maxYoungGenerationSizeMb: 16 },
    });
    this.pool = new Piscina<ParseTask, ParseReply>({
      filename: path.join(__dirname, 'parse-worker.js'),
      minThreads: 0,
      maxThreads: 1, // YAML loads are rare and heavy: one at a time, a few waiting
      maxQueue: 4,
      idleTimeout: 10_000, // its heap is given back soon after
      resourceLimits: { maxOldGenerationSizeMb: parseHeapMb(maxYamlBytes), maxYoungGenerationSizeMb: 16 },
    });
  }

  /** A YAML body's value (JSON values); 400 when malformed, 413 over FW_MAX_YAML_BODY or the thread's memory, 503 when the queue is full. */
  async yaml(body: Uint8Array): Promise<unknown> {
    if (body.length > this.maxYamlBytes) {
      throw new FwError('ERR_NET_1010', `a YAML body is limited to ${this.maxYamlBytes} bytes (FW_MAX_YAML_BODY); send larger documents as JSON`);
    }
    let reply: ParseReply;
    try {
      reply = await this.pool.run({ bytes: new Uint8Array(body) }); // a copy: the body's memory is reused
    } catch (e) {
      throw refusalOf(e);
    }
    return valueOf(reply);
  }

  /**
   * A JSON body's value (undefined when blank), with the refusals of parseJsonText: a large one
   * parsed in the JSON parse thread and joined in slices, with its text kept (json-pieces.ts).
   * When that thread cannot take it (its queue full, its memory short) the body is parsed here
   * as it always was: the thread is a relief for the HTTP thread, never a new refusal.
   */
  async json(body: Uint8Array): Promise<unknown> {
    if (body.length < THREAD_JSON_BYTES) return parseJsonText(body);
    let reply: ParseReply;
    try {
      // a copy (the body's memory is reused), made in pieces and moved to the thread, not cloned
      const bytes = await copyInPieces(body);
      reply = await this.jsonPool.run({ bytes }, { transferList: [bytes.buffer as ArrayBuffer] });
    } catch {
      return parseJsonText(body);
    }
    return valueOf(reply);
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close({ force: true }), this.jsonPool.close({ force: true })]);
  }
}

/** A copy of `body`, a megabyte a turn (15 MB at once: 30 ms of the HTTP thread on a busy machine). */
async function copyInPieces(body: Uint8Array): Promise<Uint8Array> {
  const out = new Uint8Array(body.length);
  for (let at = 0; at < body.length; at += COPY_PIECE) {
    out.set(body.subarray(at, Math.min(body.length, at + COPY_PIECE)), at);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

const COPY_PIECE = 1024 * 1024;

/** The value a parse thread sent, joined in slices; its refusal as the FwError it was. */
function valueOf(reply: ParseReply): Promise<unknown> | undefined {
  if (!reply.ok) {
    const code = (Object.prototype.hasOwnProperty.call(ERRORS, reply.code) ? reply.code : 'ERR_SYS_4001') as ErrorCode;
    throw new FwError(code, reply.details);
  }
  return reply.parts === null ? undefined : joinJson(reply.parts);
}

/** What a failed run is answered as. */
function refusalOf(e: unknown): FwError {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') return new FwError('ERR_NET_1010', 'the YAML document needs more memory to parse than the parse thread has (FW_MAX_YAML_BODY sets it); send it as JSON');
  if (/queue is at limit|No task queue available/.test(String(err.message))) {
    return new FwError('ERR_SYS_4002', 'too many YAML documents are being parsed, retry later', undefined, { 'Retry-After': '1' });
  }
  return new FwError('ERR_SYS_4001', `the YAML parse thread failed: ${String(err.message)}`);
}
