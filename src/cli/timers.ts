// The rates of dtrace(1)'s trace loop: switchrate (drain the buffers), aggrate (snapshot the
// aggregations), statusrate (check drops) and cleanrate (free committed and discarded
// speculations). Defaults and bounds are DTrace's: switchrate 10hz here, aggrate and statusrate
// 1hz, statusrate at most every 10s, cleanrate 101hz kept within 5000hz and once a minute.

export type Rate = 'switchrate' | 'aggrate' | 'statusrate' | 'cleanrate';

const NS = 1_000_000_000;

/** Each rate's interval in nanoseconds, from the options (already parsed to nanoseconds). */
export function rateIntervals(options: Map<string, string>): Record<Rate, number> {
  const get = (name: Rate, dflt: number) => {
    const v = options.get(name);
    return v === undefined || v === 'unset' ? dflt : Number(v);
  };
  const clean = get('cleanrate', 9_900_990);
  return {
    switchrate: get('switchrate', NS / 10),
    aggrate: get('aggrate', NS),
    statusrate: Math.min(get('statusrate', NS), 10 * NS),
    // 0 means as seldom as allowed, as in DTrace's kernel.
    cleanrate: clean === 0 ? 60 * NS : Math.min(Math.max(clean, 200_000), 60 * NS),
  };
}

/** Deadlines of the four rates, on the monotonic clock. */
export function traceTimers(options: Map<string, string>, now: () => number = () => Number(process.hrtime.bigint())) {
  let interval = rateIntervals(options);
  const start = now();
  const next = new Map<Rate, number>(Object.entries(interval).map(([r, ns]) => [r as Rate, start + ns]));
  return {
    /** Milliseconds until the earliest deadline (poll(2) counts milliseconds; at least 1). */
    msUntilNext(): number {
      const soonest = Math.min(...next.values());
      return Math.max(1, Math.ceil((soonest - now()) / 1e6));
    },
    /** The rates whose deadline has passed; each is set to its next deadline. */
    due(): Set<Rate> {
      // setopt() may have changed switchrate or aggrate: later deadlines keep to the new rate.
      interval = rateIntervals(options);
      const t = now();
      const out = new Set<Rate>();
      for (const [r, at] of next) {
        if (t < at) continue;
        out.add(r);
        // As DTrace does, keep to the rate's grid unless we fell more than an interval behind.
        const after = at + interval[r];
        next.set(r, after > t ? after : t + interval[r]);
      }
      return out;
    },
  };
}
