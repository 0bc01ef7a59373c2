// The compile step of the commit pipeline: the piscina pool builds the matchers and the
// analysis off the HTTP thread; its warnings travel with the commit and validate answers.
import type { DocDelta } from '../config/doc-delta';
import type { ConfigDoc } from '../config/types';
import { CompilePool } from './compile-pool';
import { warningLines } from '../eval/analysis';
import type { CompiledConfig } from '../eval/compiled';

export interface CommitCompiler {
  /** `signal`: aborting it stops the compile, ending its thread (compile-pool.ts) */
  compile(doc: ConfigDoc, base?: ConfigDoc, delta?: DocDelta, signal?: AbortSignal): Promise<{ compiled: CompiledConfig; warnings: string[] }>;
  close(): Promise<void>;
  /** the ids of the compile threads alive (a stopped compile's thread is gone) */
  threads?(): number[];
}

export function createCompiler(): CommitCompiler {
  const pool = new CompilePool();
  return {
    async compile(doc, base, delta, signal) {
      const compiled = await pool.compile(doc, base, delta, signal);
      return { compiled, warnings: compiled.analysis ? warningLines(compiled.analysis) : [] };
    },
    close: () => pool.close(),
    threads: () => pool.threadIds,
  };
}
