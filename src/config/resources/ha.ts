// The HA pair's document (issue 39): one object, replaced whole by PUT /api/ha (ha.ts).
import type { ResourceOps } from '../resource';
import { checkHa, HaModel } from '../ha';

export const haOps: ResourceOps = {
  bodies: { update: HaModel },
  update(doc, _key, body) {
    doc.ha = checkHa(doc, body);
    return {};
  },
};
