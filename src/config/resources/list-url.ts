// The committed part of an external list (issue 40, docs/dynamic-objects.md): an address whose
// prefixes are fetched by the daemon from `url` every `refresh` seconds (src/dynamic/lists.ts).
import { FwError } from '../../errors';

export const MIN_REFRESH = 1;
export const MAX_REFRESH = 7 * 86400;
export const DEFAULT_REFRESH = 3600;
const MAX_URL = 2048;

/** An http or https URL without credentials (they would be shown by every read and export). */
export function checkListUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new FwError('ERR_NET_1004', `field "url": "${raw.slice(0, 80)}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new FwError('ERR_NET_1004', `field "url": the scheme "${u.protocol.replace(/:$/, '')}" is not http or https`);
  if (u.username || u.password) throw new FwError('ERR_NET_1004', 'field "url": a URL with a user name or password is refused (it would show in every read and export)');
  if (raw.length > MAX_URL) throw new FwError('ERR_NET_1004', `field "url": at most ${MAX_URL} characters`);
  return u.toString();
}

/** The value of an address that is an external list: url (required) and refresh. */
export function listValue(b: { ips?: string[]; fqdn?: string; url?: string; refresh?: number }): { ips: string[]; url: string; refresh: number } {
  if (b.ips !== undefined || b.fqdn !== undefined) throw new FwError('ERR_NET_1004', `fields "url" and "${b.ips !== undefined ? 'ips' : 'fqdn'}": an address has exactly one of ips, fqdn and url`);
  if (b.url === undefined) throw new FwError('ERR_NET_1004', 'field "refresh": only an external list (an address with "url") has a refresh');
  const refresh = b.refresh ?? DEFAULT_REFRESH;
  if (!Number.isInteger(refresh) || refresh < MIN_REFRESH || refresh > MAX_REFRESH) throw new FwError('ERR_NET_1008', `field "refresh": ${refresh} is not within ${MIN_REFRESH}-${MAX_REFRESH} seconds`);
  return { ips: [], url: checkListUrl(b.url), refresh };
}
