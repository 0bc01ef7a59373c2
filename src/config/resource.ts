// What every resource module of src/config/resources/ provides: pure operations on a
// candidate document. Each one checks everything first (shape, formats, references,
// uniqueness) and only then mutates; a thrown FwError means nothing changed.
import type { TObject } from '@sinclair/typebox';
import type { ConfigDoc, Counters, NatRule, PolicyObj, RouteObj } from './types';

export interface ChangeResult {
  /** id assigned by a create of a policy, NAT rule or route */
  id?: number;
  /** a batch's result of each of its changes, in order */
  results?: ChangeResult[];
}

export type Rule = RouteObj | PolicyObj | NatRule;

/**
 * An id-keyed rule table (routes, policies, NAT rules) as a whole-configuration load builds
 * it: every rule checked one by one, the table assigned once (a create per rule would copy
 * the table each time).
 */
export interface RuleTable {
  table: 'routes' | 'policies' | 'nat' | 'localPolicies';
  counter: keyof Counters;
  /** The checked rule of a create body, or of an update body over `old`; its id is old's (0 for a create). */
  build(doc: ConfigDoc, body: unknown, old?: Rule): Rule;
}

/**
 * The TypeBox schemas of the request bodies an operation accepts: the shape checks of the
 * operations are compiled from them, and the OpenAPI document shows them (src/api/openapi.ts).
 */
export interface BodySchemas {
  create?: TObject;
  update?: TObject;
  move?: TObject;
}

export interface ResourceOps {
  bodies: BodySchemas;
  create?(doc: ConfigDoc, body: unknown): ChangeResult;
  update?(doc: ConfigDoc, key: string, body: unknown): ChangeResult;
  remove?(doc: ConfigDoc, key: string): ChangeResult;
  move?(doc: ConfigDoc, key: string, body: unknown): ChangeResult;
  /** for the rule tables */
  rules?: RuleTable;
}
