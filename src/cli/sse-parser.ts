// A Server-Sent Events parser (the text/event-stream format of GET /api/events): fed chunks of
// text as they arrive, it calls back with each complete event and each comment line. fwctl
// watch and the tests read the stream with it.

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export class SseParser {
  private buf = '';

  constructor(private readonly onMessage: (m: SseMessage) => void, private readonly onComment: (text: string) => void = () => undefined) {}

  /** Takes the next chunk; complete events (ended by a blank line) are handed on. */
  push(chunk: string): void {
    this.buf += chunk;
    let cut: number;
    while ((cut = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, cut);
      this.buf = this.buf.slice(cut + 2);
      this.parseBlock(block);
    }
  }

  private parseBlock(block: string): void {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.onComment(line.slice(1).trim());
      else if (line.startsWith('id:')) id = field(line, 3);
      else if (line.startsWith('event:')) event = field(line, 6);
      else if (line.startsWith('data:')) data.push(field(line, 5));
    }
    if (data.length) this.onMessage({ id, event, data: data.join('\n') });
  }
}

/** A field's value: after the colon, one leading space dropped (as the SSE standard says). */
function field(line: string, colonEnd: number): string {
  const v = line.slice(colonEnd);
  return v.startsWith(' ') ? v.slice(1) : v;
}
