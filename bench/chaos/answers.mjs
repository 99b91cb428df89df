// The chaos bench's accounting of what clients were answered, against the spec's failure table
// (spec 7): every try of every send (immediate and queued) is counted by status and error code,
// and a 4xx other than 429 answered during or after a kill is a violation. A client follows
// rule 2 on such an answer (do not repeat, fix the request) and drops a send that a retry would
// have delivered: a transient condition of the cluster (a killed pod's instances waiting for a
// new owner, a fenced pod, Redis restarting) must answer 429/502/503 with Retry-After, or 504
// when the outcome is unknown, never a final 4xx. The load makes no deliberate invalid request,
// so no 4xx is expected at all; one answered before the first kill is reported apart (the kills
// cannot explain it) and does not fail the run.

/** "201", "503 network_unavailable", "no-answer", "timeout": a try's status and its code, if any. */
export const answerKey = (a) => (a.status === 0 ? a.code : a.code ? `${a.status} ${a.code}` : String(a.status));

/** Statuses a client retries (client.mjs) or that are not refusals. */
const isFinalRefusal = (a) => a.status >= 400 && a.status < 500 && a.status !== 429;

const bump = (counts, k) => {
  counts[k] = (counts[k] ?? 0) + 1;
};

/**
 * `record` (load.mjs: sends and queued, each with `answers`), `kills` ([{name, time}] in the
 * order sent). Answers {byCode: every try by key, violations: {total, byCode, examples},
 * beforeKills: {total, byCode}}; an example names the send, its answer and the kill before it.
 */
export function accountAnswers(record, kills) {
  const firstKillAt = kills.length ? kills[0].time : Number.POSITIVE_INFINITY;
  const byCode = {};
  const violations = { total: 0, byCode: {}, examples: [] };
  const beforeKills = { total: 0, byCode: {} };
  const sends = [
    ...record.sends.map((s) => ({ kind: "send", ...s })),
    ...record.queued.map((s) => ({ kind: "queued", ...s })),
  ];
  for (const s of sends) {
    for (const a of s.answers ?? []) {
      const k = answerKey(a);
      bump(byCode, k);
      if (!isFinalRefusal(a)) continue;
      if (a.at < firstKillAt) {
        beforeKills.total++;
        bump(beforeKills.byCode, k);
        continue;
      }
      violations.total++;
      bump(violations.byCode, k);
      const kill = kills.filter((x) => x.time <= a.at).at(-1);
      if (violations.examples.length < 10) {
        violations.examples.push(
          `${s.kind} ${s.tag} answered ${k} ${((a.at - kill.time) / 1000).toFixed(1)} s after kill -9 ${kill.name}`,
        );
      }
    }
  }
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return {
    byCode: sorted(byCode),
    violations: { ...violations, byCode: sorted(violations.byCode) },
    beforeKills: { ...beforeKills, byCode: sorted(beforeKills.byCode) },
  };
}
