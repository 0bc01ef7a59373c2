// The API's complaint about a field in plain words, for the form to show at that field: the
// contract's details (`field "ips[1]": "10.0.0.300" is not an IPv4 or IPv6 network`, with the
// code ERR_NET_1001) become "Enter a valid IPv4 or IPv6 address or prefix (entry 2:
// 10.0.0.300)". The code and the request's field path are for programs; a person reads what
// to enter (issue 29). Details without a field keep the API's text (describeError).
import { ApiError } from './api';

/** What to enter, by the wording of the API's details (src/config/net.ts and the validators). */
const ASKS: [RegExp, string][] = [
  [/is not an address with a prefix/, 'Enter an address with its prefix, such as 192.168.1.1/24'],
  [/is not an IP address/, 'Enter a valid IPv4 or IPv6 address'],
  [/is not an IPv4 or IPv6 (network|address)/, 'Enter a valid IPv4 or IPv6 address or prefix'],
  [/is not a port number/, 'Enter a port number from 0 to 65535'],
  [/^(?:"[^"]*"|\S+) is not within (\d+)-(\d+)/, 'Enter a number from $1 to $2'],
  [/^at most (\d+) characters/, 'Use at most $1 characters'],
];

/** By code, when the wording is not one of ASKS. */
const BY_CODE: Record<string, string> = {
  ERR_NET_1001: 'Enter a valid IPv4 or IPv6 address or prefix',
  ERR_NET_1008: 'Enter a value within the allowed range',
};

const sentence = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The field a message belongs to (`ips` of `ips[1]`), its entry (1) and the message; null without a field. */
export function plainFieldError(code: string, details: string): { field: string; text: string } | null {
  const m = /^field "([^"[]+)(?:\[(\d+)\])?[^"]*":\s*(.*)$/s.exec(details);
  if (!m) return null;
  const [, field, index, rest] = m;
  const value = /^"([^"]*)"/.exec(rest)?.[1];
  const ask = ASKS.map(([re, say]) => [re.exec(rest), say] as const).find(([hit]) => hit !== null);
  const asked = ask ? ask[1].replace(/\$(\d)/g, (_, i: string) => ask[0]![Number(i)]) : BY_CODE[code];
  if (asked === undefined) return { field, text: index === undefined ? sentence(rest) : `${sentence(rest)} (entry ${Number(index) + 1})` };
  let text = asked;
  const where = [index === undefined ? '' : `entry ${Number(index) + 1}`, value ?? ''].filter(Boolean).join(': ');
  if (where) text += ` (${where})`;
  return { field, text };
}

/** An API error at a form's field: the field and its plain message; null when it names none. */
export function fieldErrorOf(err: unknown): { field: string; text: string } | null {
  return err instanceof ApiError && err.status !== 403 ? plainFieldError(err.body.code ?? '', err.body.details ?? '') : null;
}
