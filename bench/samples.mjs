// Measurements kept per target and metric, in the order they were taken, for the benches' tables.

/** A table of samples: `record(target, metric, value)`, then `values(target, metric)` and `metrics()`. */
export function sampleTable() {
  const samples = new Map();
  const key = (target, metric) => `${target}\u0000${metric}`;
  return {
    record(target, metric, value) {
      const k = key(target, metric);
      if (!samples.has(k)) samples.set(k, []);
      samples.get(k).push(value);
    },
    /** The values of one target and metric (empty when none was taken). */
    values: (target, metric) => samples.get(key(target, metric)) ?? [],
    /** Every metric recorded, in the order each was first recorded. */
    metrics: () => [...new Set([...samples.keys()].map((k) => k.split("\u0000")[1]))],
    clear: () => samples.clear(),
  };
}
