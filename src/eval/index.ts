// The packet-evaluation core: see docs/eval.md.
export type { Packet, EvalResult, Evaluator, RouteAnswer, NatAnswer, PolicyAnswer, EvalAction, EvalReason } from './types';
export { parsePacket, parseBatch, parsePacketBatch, evalBatch, MAX_BATCH } from './packet';
export { PacketBatch, BatchAnswers, takeBatch, releaseBatch } from './batch';
export { scanPacketBatch } from './batch-scan';
export { ReferenceEvaluator } from './reference';
export { CompiledConfig } from './compiled';
export { compileImage, type CompileOptions } from './compile';
export type { CompiledImage, ImageMeta } from './image';
export { analyze, warningLines, type Analysis, type Coverage, type AnalyzeOptions, type AnalysisStats } from './analysis';
export { LinearClassifier } from './linear';
