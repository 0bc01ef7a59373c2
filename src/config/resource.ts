// What every resource module of src/config/resources/ provides: pure operations on a
// candidate document. Each one checks everything first (shape, formats, references,
// uniqueness) and only then mutates; a thrown FwError means nothing changed.
import type { TObject } from '@sinclair/typebox';
import type { ConfigDoc } from './types';

export interface ChangeResult {
  /** id assigned by a create of a policy, NAT rule or route */
  id?: number;
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
}
