export { and, confidenceToWeight, DEFAULT_COMPLEMENT, evidenceCount, evidenceToStv, modusPonens, not, or, revision, REVISION_K, simpleModusPonens, weightRevision, weightToConfidence } from './formulas.ts';
export { isStv, stv, stvAtom, type Stv } from './truth.ts';
export { chain, disjoint, type ChainAnswer, type ChainFact, type ChainOptions, type ChainResult, type ChainRule } from './chainer.ts';
export { isGround, match, substitute, type Bindings } from './unify.ts';
export { plnPremises, premiseProblems, type HeldBelief, type PlnPremise } from './promotion.ts';
export { chainInputs, IMPLICATION_HEADS } from './chain-inputs.ts';
export {
  evidencePackets,
  HANDOFF_LABEL,
  handoffCache,
  patham9Sentences,
  pettaChainerStatement,
  pettaChainerStatements,
  writeHandoffCache,
  type HandoffCache,
  type Patham9Export,
} from './exports.ts';
export { deriveWithRecord, loadDerivationRecord, PLN_ENGINE_VERSION, saveDerivationRecord, verifyDerivationRecord, type DerivationRecord } from './derivation-record.ts';
