// What several HTTP tests of evaluation ask alike: that POST /api/eval, the batch and the
// reference evaluator answer a list of packets the same way, each with the policy expected;
// and the deep analysis of a running version, once the background pass has it.
import { parseDoc } from '../../src/config/document';
import { parsePacket } from '../../src/eval/packet';
import { ReferenceEvaluator } from '../../src/eval/reference';
import { ok, type Client, type Res } from './daemon';

/** Each packet's policy id (null: none) from POST /api/eval; its answer equal to the batch's
 * and to the reference evaluator's on the running version the batch names. */
export async function expectEvalCases(c: Client, cases: Array<[Record<string, unknown>, number | null]>): Promise<void> {
  const batch = (await ok(c.post('/api/eval/batch', { packets: cases.map(([p]) => p) }))).body;
  const ref = new ReferenceEvaluator(parseDoc((await ok(c.get(`/api/config/versions/${batch.version}`))).body.config));
  for (const [i, [p, id]] of cases.entries()) {
    const one = (await ok(c.post('/api/eval', p))).body;
    expect({ i, policy: one.policy?.id ?? null }).toEqual({ i, policy: id });
    expect({ i, ...batch.results[i] }).toEqual({ i, ...ref.eval(parsePacket(p)) });
    const { version: _v, ...answer } = one;
    expect({ i, ...answer }).toEqual({ i, ...batch.results[i] });
  }
}

/** GET /api/analysis until the deep result of `version` is there (bounded: 600 tries). */
export async function deepResult(client: Client, version: number): Promise<Res> {
  for (let i = 0; i < 600; i++) {
    const r = await client.get('/api/analysis');
    expect(r.status).toBe(200);
    if (r.body.version === version && r.body.pass === 'deep') return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`no deep analysis of version ${version}`);
}
