// Hangup causes and their Q.850 codes, as switch_channel.c names them.

const Q850: Record<string, number> = {
  UNALLOCATED_NUMBER: 1,
  NO_ROUTE_TRANSIT_NET: 2,
  NO_ROUTE_DESTINATION: 3,
  NORMAL_CLEARING: 16,
  USER_BUSY: 17,
  NO_USER_RESPONSE: 18,
  NO_ANSWER: 19,
  SUBSCRIBER_ABSENT: 20,
  CALL_REJECTED: 21,
  NUMBER_CHANGED: 22,
  DESTINATION_OUT_OF_ORDER: 27,
  INVALID_NUMBER_FORMAT: 28,
  NORMAL_UNSPECIFIED: 31,
  NORMAL_CIRCUIT_CONGESTION: 34,
  NETWORK_OUT_OF_ORDER: 38,
  NORMAL_TEMPORARY_FAILURE: 41,
  SWITCH_CONGESTION: 42,
  SERVICE_UNAVAILABLE: 63,
  BEARERCAPABILITY_NOTIMPL: 65,
  CHAN_NOT_IMPLEMENTED: 66,
  FACILITY_NOT_IMPLEMENTED: 69,
  INCOMPATIBLE_DESTINATION: 88,
  RECOVERY_ON_TIMER_EXPIRE: 102,
  INTERWORKING: 127,
  ORIGINATOR_CANCEL: 487,
  ALLOTTED_TIMEOUT: 602,
  USER_NOT_REGISTERED: 606,
  LOSE_RACE: 502,
  MEDIA_TIMEOUT: 604,
  MANAGER_REQUEST: 503,
};

/** Normalises a cause given by a client (any case); unknown names fall back to FreeSWITCH's default. */
export function normalizeCause(cause: string | undefined, fallback = 'NORMAL_CLEARING'): string {
  if (!cause) return fallback;
  const upper = cause.trim().toUpperCase();
  if (upper in Q850) return upper;
  const byCode = Object.entries(Q850).find(([, code]) => String(code) === upper);
  return byCode ? byCode[0] : fallback;
}

export function isKnownCause(cause: string): boolean {
  return cause.toUpperCase() in Q850;
}

/**
 * The Q.850 code of `hangup_cause_q850` (switch_channel_cause_q850): FreeSWITCH's own causes,
 * numbered above 127 (ORIGINATOR_CANCEL 487, MEDIA_TIMEOUT 604…), report NORMAL_CLEARING's 16.
 */
export function q850(cause: string): number {
  const code = Q850[cause] ?? 0;
  return code > 127 ? 16 : code;
}
