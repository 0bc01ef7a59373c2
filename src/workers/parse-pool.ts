// The parse thread of YAML bodies (PUT /api/config/candidate). YAML parsing is ~30 times
// slower than JSON's and takes ~100 bytes of memory a byte (an 8 MB document: 27 s and ~800 MB
// on the HTTP thread, which then answered nothing): here it runs in one piscina thread whose
// heap is capped, so a document that needs more ends that thread (413), never the process.
// The HTTP thread gets JSON text back and parses it as it would a JSON body.
import path from 'node:path';
import { Piscina } from 'piscina';
import { ERRORS, FwError, type ErrorCode } from '../errors';
import type { ParseReply, ParseTask } from './parse-worker';

/** The parse thread's heap for YAML bodies up to `maxYamlBytes`: 100 bytes a byte, plus room for the thread itself. */
export function parseHeapMb(maxYamlBytes: number): number {
  return 64 + Math.ceil((100 * maxYamlBytes) / (1024 * 1024));
}

export class ParsePool {
  private readonly pool: Piscina<ParseTask, ParseReply>;

  constructor(private readonly maxYamlBytes: number) {
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
    if (!reply.ok) {
      const code = (Object.prototype.hasOwnProperty.call(ERRORS, reply.code) ? reply.code : 'ERR_SYS_4001') as ErrorCode;
      throw new FwError(code, reply.details);
    }
    return JSON.parse(reply.json) as unknown;
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
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
