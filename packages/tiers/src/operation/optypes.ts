/**
 * Operation type and subtype of each participation step. The spec shows optype 19 for nodeStep5_2,
 * blockchainStart and nodeCancel; the subtype tells them apart.
 */
export const PARTICIPATION_OPTYPES = {
  nodeStep1: { optype: 8, subtype: 0 },
  nodeStep2: { optype: 9, subtype: 0 },
  nodeStep3_1: { optype: 14, subtype: 0 },
  nodeStep3_2: { optype: 15, subtype: 0 },
  nodeStep4_1: { optype: 16, subtype: 0 },
  nodeStep4_2: { optype: 17, subtype: 0 },
  nodeStep5_1: { optype: 18, subtype: 0 },
  nodeStep5_2: { optype: 19, subtype: 0 },
  blockchainStart: { optype: 19, subtype: 1 },
  nodeCancel: { optype: 19, subtype: 2 },
} as const;

export type ParticipationStep = keyof typeof PARTICIPATION_OPTYPES;
