// The read model of a local policy (issue 41): a security policy's, without `dstZone` (the
// firewall itself is the destination), so a client that knows policies reads it alike.
import { Type, type Static } from '@sinclair/typebox';
import type { ConfigDoc, PolicyObj } from '../types';
import { PolicyModel, renderPolicy } from './rules';

const { dstZone: _dz, ...props } = PolicyModel.properties;
export const LocalPolicyModel = Type.Object(props, { additionalProperties: false, description: 'a policy for traffic addressed to the firewall itself (no dstZone)' });
export type LocalPolicyModel = Static<typeof LocalPolicyModel>;

export function renderLocalPolicy(doc: ConfigDoc, p: PolicyObj): LocalPolicyModel {
  const { dstZone: _d, ...model } = renderPolicy(doc, p);
  return model;
}
