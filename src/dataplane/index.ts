// The data plane chosen by FW_DATAPLANE.
import type { Logger } from 'pino';
import { LinuxDataPlane, type LinuxOptions } from './linux';
import { NoDataPlane, type DataPlane } from './types';

export type { DataPlane, DataPlaneStatus } from './types';
export { renderPlan } from './plan';

export function createDataPlane(mode: 'none' | 'linux', netns: string | null, dataDir: string, log: Logger, opts: LinuxOptions): DataPlane {
  return mode === 'linux' ? new LinuxDataPlane(netns, dataDir, log, opts) : new NoDataPlane();
}
