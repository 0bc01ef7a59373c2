// Which node's kernel a per-node page reads (traffic log, connections): in a cluster every
// instance answers for every node (?node=), so the operator picks one; with one node there is
// nothing to pick and nothing is shown.
import { api } from './api';
import type { ClusterNode } from './types';
import { useId, useLoad } from './ui';

/** The `node` query parameter of a page's requests: '' is the instance the console talks to. */
export function NodePicker(p: { value: string; onChange: (node: string) => void }) {
  const id = useId('node');
  const nodes = useLoad(() => api<ClusterNode[]>('GET', '/api/cluster/nodes'), []);
  const list = nodes.data ?? [];
  if (list.length < 2) return null;
  return (
    <div class="field">
      <label for={id}>Node</label>
      <select id={id} value={p.value} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">this instance</option>
        {list.map((n) => <option key={n.id} value={n.id}>{`${n.id}${n.self ? ' (this instance)' : ''}${n.live ? '' : ' (not answering)'}`}</option>)}
      </select>
    </div>
  );
}
