// `?limit=` and `?cursor=` of the lists read by pages (GET /api/sessions, GET /api/policies):
// a limit that is not a whole number is 400 ERR_NET_1004, one outside its range 400
// ERR_NET_1008; a cursor is the previous page's `next`, a whole number (an id), else 400
// ERR_NET_1004.
import { Type } from '@sinclair/typebox';
import { FwError } from '../errors';
import type { QueryDoc } from './http';

export interface PageArgs {
  limit: number;
  /** the id the previous page ended with; null: from the start */
  cursor: number | null;
}

/** The page the query asks for; null when it names neither limit nor cursor. */
export function pageArgs(q: URLSearchParams, defaultLimit: number, maxLimit: number): PageArgs | null {
  const limitText = q.get('limit');
  const cursorText = q.get('cursor');
  if (limitText === null && cursorText === null) return null;
  let limit = defaultLimit;
  if (limitText !== null) {
    if (!/^\d{1,7}$/.test(limitText)) throw new FwError('ERR_NET_1004', `query "limit": "${limitText.slice(0, 64)}" is not a whole number`);
    limit = Number(limitText);
    if (limit < 1 || limit > maxLimit) throw new FwError('ERR_NET_1008', `query "limit": ${limit} is not within 1-${maxLimit}`);
  }
  if (cursorText !== null && !/^\d{1,10}$/.test(cursorText)) throw new FwError('ERR_NET_1004', `query "cursor": "${cursorText.slice(0, 64)}" is not the next of a previous page`);
  return { limit, cursor: cursorText === null ? null : Number(cursorText) };
}

/** The OpenAPI description of the two parameters. */
export function pageQuery(what: string, defaultLimit: number, maxLimit: number): Record<string, QueryDoc> {
  return {
    limit: { schema: Type.Integer({ minimum: 1, maximum: maxLimit }), description: `${what} per page, 1-${maxLimit} (default ${defaultLimit})` },
    cursor: { schema: Type.String(), description: 'the previous page\'s next' },
  };
}
