// The media type of a request body. A body must say it is JSON (or YAML where a route takes
// YAML): a browser sends text/plain, a form's types, or no type at all from any web page
// without asking the server first (a CORS "simple request"), so a body labelled otherwise
// is refused (415) before it is read: no cross-site page can log in or change anything.
import { FwError } from '../errors';

export const YAML_TYPE = 'application/yaml';
export const YAML_TYPES: ReadonlySet<string> = new Set([YAML_TYPE, 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

/** The media type of a Content-Type or Accept item, lower case, without its parameters. */
export function mediaType(header: string): string {
  return header.split(';')[0].trim().toLowerCase();
}

/** application/json, or a structured +json type (application/merge-patch+json...). */
function isJson(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The charset parameter of a Content-Type, lower case ("" when absent). */
function charsetOf(header: string): string {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header);
  return m ? m[1].toLowerCase() : '';
}

/**
 * What a body labelled `header` is: 'json', or 'yaml' when `yamlToo` and it says YAML; else
 * 415 ERR_NET_1014. Bodies are read as UTF-8: another charset is refused too.
 */
export function bodyType(header: string, yamlToo: boolean): 'json' | 'yaml' {
  const type = mediaType(header);
  const charset = charsetOf(header);
  const kind = isJson(type) ? 'json' : yamlToo && YAML_TYPES.has(type) ? 'yaml' : null;
  const accepted = yamlToo ? 'application/json or application/yaml' : 'application/json';
  if (kind === null) {
    throw new FwError('ERR_NET_1014', type === '' ? `a body needs Content-Type: ${accepted}` : `Content-Type "${type}" is not ${accepted}`);
  }
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') throw new FwError('ERR_NET_1014', `charset "${charset}": bodies are UTF-8`);
  return kind;
}
