// What a commit compares to know that the candidate this process cached is the journal the
// store holds (issue 31: after a network split, the cache may hold the losing side's changes
// under the same session and length as the winning side's journal). Each stored line has the
// SHA-1 of its bytes; the journal's digest is the SHA-1 of those, in order, as hex text. The
// Redis store computes the same in Lua (scripts.ts, CLAIM): redis.sha1hex is that function.
import { createHash } from 'node:crypto';
import { TEXT_PIECE, textPieces } from '../config/json-pieces';

/** The digest of one stored journal line (its UTF-8 bytes, as sent to the store). */
export function lineDigest(line: string): string {
  return createHash('sha1').update(line).digest('hex');
}

/** lineDigest, a long line hashed a piece a turn (a 15 MB loaded document: 20-40 ms in one go; issue 38). */
export async function lineDigestSliced(line: string): Promise<string> {
  if (line.length <= TEXT_PIECE) return lineDigest(line);
  const hash = createHash('sha1');
  for (const piece of textPieces(line)) {
    hash.update(piece);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

/** The digest of a journal whose lines have these digests, in order. */
export function journalDigest(lineDigests: readonly string[]): string {
  return createHash('sha1').update(lineDigests.join('')).digest('hex');
}
