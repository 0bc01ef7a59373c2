// The compile step of the commit pipeline: the piscina pool builds the matchers and the
// analysis off the HTTP thread; its warnings travel with the commit and validate answers.
import type { DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import { CompilePool } from './compile-pool';
import { warningLines } from '../eval/analysis';
import type { CompiledConfig } from '../eval/compiled';

export interface CommitCompiler {
  compile(doc: ConfigDoc, base?: ConfigDoc, delta?: DocDelta): Promise<{ compiled: CompiledConfig; warnings: string[] }>;
  close(): Promise<void>;
}

export function createCompiler(): CommitCompiler {
  const pool = new CompilePool();
  return {
    async compile(doc, base, delta) {
      const compiled = await pool.compile(doc, base, delta);
      return { compiled, warnings: compiled.analysis ? warningLines(compiled.analysis) : [] };
    },
    close: () => pool.close(),
  };
}
