/**
 * Typed requests for the participation steps (see @chain/ledger's `requestBuilder`): the body a
 * step takes is its codec's, so a handler that builds the wrong body for a step does not compile.
 */
import {
  type OperationCodec,
  type RequestSigning,
  requestBuilder,
  type TypedRequest,
} from '@chain/ledger/codec';
import type { ParticipationStep } from './optypes';
import {
  approveBottomCodec,
  approveMiddleCodec,
  approveMiddleHardwareCodec,
  type BottomDecisionBody,
  type CancelBody,
  cancelCodec,
  type DecisionBody,
  type JoinBottomBody,
  type JoinMiddleBody,
  type JoinTopBody,
  joinBottomCodec,
  joinMiddleCodec,
  joinTopCodec,
  type MiddleHardwareBody,
  middleHardwareCodec,
  type StartMiningBody,
  startMiningCodec,
  type TopHardwareBody,
  topHardwareCodec,
} from './step-codecs';

/** The body of each participation step. */
export interface ParticipationBodies {
  nodeStep1: JoinTopBody;
  nodeStep2: TopHardwareBody;
  nodeStep3_1: JoinMiddleBody;
  nodeStep3_2: DecisionBody;
  nodeStep4_1: MiddleHardwareBody;
  nodeStep4_2: DecisionBody;
  nodeStep5_1: JoinBottomBody;
  nodeStep5_2: BottomDecisionBody;
  blockchainStart: StartMiningBody;
  nodeCancel: CancelBody;
}

/** Each step's codec: the compiler checks that it encodes the step's body. */
const STEP_CODECS: {
  readonly [Step in ParticipationStep]: OperationCodec<ParticipationBodies[Step]>;
} = {
  nodeStep1: joinTopCodec,
  nodeStep2: topHardwareCodec,
  nodeStep3_1: joinMiddleCodec,
  nodeStep3_2: approveMiddleCodec,
  nodeStep4_1: middleHardwareCodec,
  nodeStep4_2: approveMiddleHardwareCodec,
  nodeStep5_1: joinBottomCodec,
  nodeStep5_2: approveBottomCodec,
  blockchainStart: startMiningCodec,
  nodeCancel: cancelCodec,
};

/** The request of participation step `step` (its optype and subtype) with its typed body. */
export function participationRequest<Step extends ParticipationStep, S extends RequestSigning>(
  step: Step,
  signing: S,
  body: ParticipationBodies[Step],
): TypedRequest<S, ParticipationBodies[Step]> {
  return requestBuilder<ParticipationBodies[Step]>(STEP_CODECS[step])(signing, body);
}
