// The compile step of the commit pipeline. (In progress: the piscina pool is being written.)
import type { ConfigDoc } from '../config/types';

export interface CommitCompiler {
  compile(doc: ConfigDoc): Promise<{ compiled: unknown; warnings: string[] }>;
  close(): Promise<void>;
}

export function createCompiler(): CommitCompiler {
  return {
    compile: async () => ({ compiled: null, warnings: [] }),
    close: async () => undefined,
  };
}
