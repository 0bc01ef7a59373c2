// Shared set-up of the unit tests that call resource operations directly on a document.
import { serializeDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import type { ResourceOps } from '../../src/config/resource';
import { isFwError } from '../../src/errors';

/** Runs fn, expects a FwError with `code` (and details matching `details`), and that doc did not change. */
export function expectFail(doc: ConfigDoc, fn: () => unknown, code: string, details?: RegExp): void {
  const before = JSON.stringify(serializeDoc(doc));
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(isFwError(caught)).toBe(true);
  const err = caught as { code: string; details: string };
  expect(err.code).toBe(code);
  if (details) expect(err.details).toMatch(details);
  expect(JSON.stringify(serializeDoc(doc))).toBe(before);
}

/** expectFail for creates of one resource: `createFails(doc, ops)(body, code, details?)`. */
export function createFails(doc: ConfigDoc, ops: ResourceOps) {
  return (body: unknown, code: string, details?: RegExp): void => expectFail(doc, () => ops.create!(doc, body), code, details);
}
