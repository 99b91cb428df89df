// Where the time of one relayed message goes, from the help-desk workflows' Temporal histories
// (bench/helpdesk.mjs): for each item of every `helpdeskConversation` run of a task queue, when it
// was signalled (the intake's signal-with-start), when its activity was scheduled (the workflow
// took it up), started (a worker slot picked it up) and completed, the last attempt's number, and
// the `publishedAt` the item carries (the event's publication by the session pod). Keyed by the
// message's network id (what the relay writes as `source_id` `WAID:<id>`).

/** google.protobuf.Timestamp → ms since the epoch (protobufjs gives `seconds` as a Long or a number). */
function ms(ts) {
  if (!ts) return Number.NaN;
  const s = typeof ts.seconds === "object" && ts.seconds !== null ? ts.seconds.toNumber() : Number(ts.seconds ?? 0);
  return s * 1000 + (ts.nanos ?? 0) / 1e6;
}

/** The first JSON payload of a Payloads message. */
function firstPayload(payloads) {
  const p = payloads?.payloads?.[0];
  if (!p?.data) return undefined;
  try {
    return JSON.parse(Buffer.from(p.data).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** `{fromMe}_{chatId}_{id}` → id (what stays the same however the chat is named); anything else as is. */
export function networkIdOf(apiId) {
  const m = /^(true|false)_([^_\s]+@[a-z.]+)_([A-Za-z0-9.=~-]+)(?:_([^_\s]+@[a-z.]+))?$/.exec(apiId.trim());
  return m ? m[3] : apiId;
}

/**
 * Every run of the task queue's help-desk workflows (closed ones too: a chat's workflow ends when
 * idle and a later item starts a new run), `concurrency` histories fetched at a time.
 * Answers Map<networkId, {publishedAt, signaledAt, previousDoneAt, wft: {scheduledAt, startedAt,
 * completedAt}, scheduledAt, startedAt, completedAt, attempt, signals}>: `previousDoneAt` is when
 * the chat's previous item ended (or the run started), `wft` the workflow task that scheduled it.
 */
export async function itemTimelines(client, taskQueue, { concurrency = 16 } = {}) {
  const runs = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
    runs.push({ workflowId: wf.workflowId, runId: wf.runId });
  }
  const out = new Map();
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const { workflowId, runId } = runs[next++];
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const scheduled = new Map(); // scheduled event id → network id
      const times = new Map(); // event id → ms
      const wfts = new Map(); // workflow task completed event id → {scheduledAt, startedAt, completedAt}
      let lastDone = Number.NaN; // the run's start, then its last activity's end
      for (const e of history.events ?? []) {
        const at = ms(e.eventTime);
        times.set(String(e.eventId), at);
        if (e.workflowExecutionStartedEventAttributes) lastDone = at;
        const wftDone = e.workflowTaskCompletedEventAttributes;
        if (wftDone) {
          wfts.set(String(e.eventId), {
            scheduledAt: times.get(String(wftDone.scheduledEventId)),
            startedAt: times.get(String(wftDone.startedEventId)),
            completedAt: at,
          });
          continue;
        }
        const sig = e.workflowExecutionSignaledEventAttributes;
        if (sig) {
          const item = firstPayload(sig.input);
          if (item?.kind !== "event" || typeof item.payload?.id !== "string") continue;
          const nid = networkIdOf(item.payload.id);
          const t = out.get(nid) ?? {};
          // A second copy (a stream entry handed over again) keeps the first signal's time.
          if (t.signaledAt === undefined) Object.assign(t, { signaledAt: at, publishedAt: item.publishedAt });
          t.signals = (t.signals ?? 0) + 1;
          out.set(nid, t);
          continue;
        }
        const sch = e.activityTaskScheduledEventAttributes;
        if (sch) {
          const input = firstPayload(sch.input);
          const id = input?.item?.payload?.id;
          if (typeof id !== "string") continue;
          const nid = networkIdOf(id);
          scheduled.set(String(e.eventId), nid);
          const t = out.get(nid) ?? {};
          t.scheduledAt = at;
          t.publishedAt ??= input.item.publishedAt;
          // Free to be taken up: signalled, and the chat's previous item done.
          t.previousDoneAt = lastDone;
          t.wft = wfts.get(String(sch.workflowTaskCompletedEventId));
          out.set(nid, t);
          continue;
        }
        const st = e.activityTaskStartedEventAttributes;
        if (st) {
          const t = out.get(scheduled.get(String(st.scheduledEventId)));
          if (t) Object.assign(t, { startedAt: at, attempt: st.attempt });
          continue;
        }
        const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
        if (done) {
          const t = out.get(scheduled.get(String(done.scheduledEventId)));
          if (t) t.completedAt = at;
          lastDone = at;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  return { runs: runs.length, items: out };
}
