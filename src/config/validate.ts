// Checks shared by every resource: payload shape (TypeBox, compiled once), names, enums,
// ranges, addresses and references. Each failure is a FwError whose details name the field.
import type { TObject, Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { FwError, type ErrorCode } from '../errors';
import { isPlainObject } from './json';
import { canonicalCidr, canonicalIfaceAddress, canonicalIp } from './net';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** A compiled shape check: unknown fields, missing fields and wrong JSON types are 400 ERR_NET_1004. */
export function shapeChecker<T extends TObject>(schema: T): (body: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  const known = new Set(Object.keys(schema.properties));
  const required = schema.required ?? [];
  return (body: unknown): Static<T> => {
    if (compiled.Check(body)) return body;
    // details are gathered only once the fast check has failed
    if (body === undefined) throw new FwError('ERR_NET_1004', 'a JSON request body is required');
    if (!isPlainObject(body)) throw new FwError('ERR_NET_1004', 'the request body must be a JSON object');
    for (const key of Object.keys(body)) {
      if (!known.has(key)) throw new FwError('ERR_NET_1004', `unknown field "${key}"`);
    }
    for (const key of required) {
      if (!Object.hasOwn(body, key)) throw new FwError('ERR_NET_1004', `missing field "${key}"`);
    }
    const first = compiled.Errors(body).First();
    const where = first ? first.path.slice(1).replace(/\//g, '.') : '';
    throw new FwError('ERR_NET_1004', `field "${where}": ${first ? first.message.toLowerCase() : 'invalid'}`);
  };
}

/** What is wrong with an identifier (user names too), or null: 1-64 characters of
 * [A-Za-z0-9_.:-], starting alphanumeric; "any" is reserved. */
export function nameProblem(value: string): string | null {
  if (value.length < 1 || value.length > 64 || !NAME.test(value)) {
    return 'a name is 1-64 characters of letters, digits, "_", ".", ":" and "-", starting with a letter or digit';
  }
  return value.toLowerCase() === 'any' ? '"any" is reserved' : null;
}

/** An identifier, else 400 ERR_NET_1004 naming the field (nameProblem). */
export function checkName(field: string, value: string): string {
  const problem = nameProblem(value);
  if (problem !== null) throw new FwError('ERR_NET_1004', `field "${field}": ${problem}`);
  return value;
}

/** An edit payload may repeat its identifier only with the path's value: no renaming. */
export function checkSameKey(field: string, inBody: unknown, pathKey: string): void {
  if (inBody !== undefined && String(inBody) !== pathKey) {
    throw new FwError('ERR_NET_1004', `field "${field}": renaming is not supported (path has "${pathKey}")`);
  }
}

export function checkEnum<T extends string>(field: string, value: string, allowed: readonly T[], code: ErrorCode = 'ERR_NET_1005'): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new FwError(code, `field "${field}": "${value}" is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** A free text of at most `max` characters (a description). */
export function checkText(field: string, value: string, max: number): string {
  if (value.length > max) throw new FwError('ERR_NET_1004', `field "${field}": at most ${max} characters`);
  return value;
}

export function checkRange(field: string, value: number, min: number, max: number): number {
  if (value < min || value > max) throw new FwError('ERR_NET_1008', `field "${field}": ${value} is not within ${min}-${max}`);
  return value;
}

export function checkCidr(field: string, value: string): string {
  const c = canonicalCidr(value);
  if (c === null) throw new FwError('ERR_NET_1001', `field "${field}": "${value}" is not an IPv4 or IPv6 network`);
  return c;
}

/** A list of networks: canonical, host bits cleared, duplicates removed, order kept. */
export function checkCidrList(field: string, values: string[], max = 1024): string[] {
  if (values.length > max) throw new FwError('ERR_NET_1008', `field "${field}": at most ${max} entries`);
  // a Set: out.includes made a 1,024-prefix address cost ~500,000 string compares (issue 38)
  const out = new Set<string>();
  values.forEach((v, i) => out.add(checkCidr(`${field}[${i}]`, v)));
  return [...out];
}

export function checkIp(field: string, value: string): string {
  const c = canonicalIp(value);
  if (c === null) throw new FwError('ERR_NET_1001', `field "${field}": "${value}" is not an IP address`);
  return c;
}

/** An interface address with its prefix ("192.168.1.1/24"), or "" to clear it. */
export function checkIfaceAddress(field: string, value: string): string {
  if (value === '') return '';
  const c = canonicalIfaceAddress(value);
  if (c === null) throw new FwError('ERR_NET_1001', `field "${field}": "${value}" is not an address with a prefix such as 192.168.1.1/24`);
  return c;
}

/** A reference to another object by name: "" stays "", an unknown name is 400 ERR_NET_2003. */
export function checkRef(field: string, value: string, exists: (name: string) => boolean, what: string): string {
  if (value === '' || exists(value)) return value;
  const e = new FwError('ERR_NET_2003', `field "${field}": ${what} "${value}" does not exist`);
  if (!deferredRefs) throw e;
  deferredRefs.push(e); // a load wants every unknown reference of the object, not the first
  return value;
}

/** While set, checkRef records unknown references here instead of throwing at the first. */
let deferredRefs: FwError[] | null = null;

/**
 * Runs `build` (synchronous) collecting every unknown reference it checks; a load uses it to
 * report all of an object's problems at once (issue 43). The result is only usable when
 * `refs` is empty; a throw after a deferred reference may be its consequence and is then
 * reported by the caller beside the references.
 */
export function collectingRefs<T>(build: () => T): { value?: T; refs: FwError[]; error?: unknown } {
  const refs: FwError[] = [];
  const outer = deferredRefs;
  deferredRefs = refs;
  try {
    return { value: build(), refs };
  } catch (error) {
    return { refs, error };
  } finally {
    deferredRefs = outer;
  }
}

/** A zone, address or service reference where "", "any" and absence all mean any (""). */
export function anyRef(field: string, value: string | undefined, exists: (name: string) => boolean, what: string): string {
  if (value === undefined || value === '' || value === 'any') return '';
  return checkRef(field, value, exists, what);
}

/** The id of a policy, NAT rule or route in the path: a positive integer, else 400 ERR_NET_1002. */
export function parseRuleId(key: string): number {
  if (!/^[1-9]\d{0,14}$/.test(key)) throw new FwError('ERR_NET_1002', `"${key}" is not a valid id`);
  return Number(key);
}

export function notFound(what: string, key: string): FwError {
  return new FwError('ERR_NET_1003', `${what} "${key}" not found`);
}

/** The object a path names in a name-keyed table (address, zone, ...), else 404 ERR_NET_1003. */
export function existing<T>(table: ReadonlyMap<string, T>, what: string, key: string): T {
  const o = table.get(key);
  if (o === undefined) throw notFound(what, key);
  return o;
}

/** Checks that nothing references an object before it is deleted: 409 ERR_NET_2007 names them all. */
export function checkUnused(what: string, key: string, referrers: string[]): void {
  if (referrers.length) {
    throw new FwError('ERR_NET_2007', `${what} "${key}" is used by ${referrers.join(', ')}`);
  }
}

/** Every unique value, in order; a repeated one is 400 with the given code. */
export function checkUnique<T>(field: string, values: T[], code: ErrorCode = 'ERR_NET_1004'): T[] {
  const seen = new Set<string>();
  for (const v of values) {
    const k = JSON.stringify(v);
    if (seen.has(k)) throw new FwError(code, `field "${field}": ${k} appears twice`);
    seen.add(k);
  }
  return values;
}

/**
 * Constraints a handler checks itself, with the contract's own code and words (checkEnum:
 * ERR_NET_1005, ERR_SEC_1001/1002; checkRange: ERR_NET_1008; checkText: "at most N
 * characters"), shown in the OpenAPI document as the schema keywords they are (openapi.ts lifts
 * them). Written as keywords of the schema itself, TypeBox would refuse the value first, as
 * ERR_NET_1004 with its own words.
 */
export const CHECKED = 'x-checked';
export function checked(keywords: { enum?: readonly string[]; minimum?: number; maximum?: number; maxLength?: number; pattern?: string }): Record<string, unknown> {
  return { [CHECKED]: keywords };
}
