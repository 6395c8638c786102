/** The parts of a V8 .cpuprofile (Profiler.stop, node --cpu-prof) the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number } }[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface SelfTime {
  readonly fn: string;
  readonly ms: number;
  readonly share: number;
}

/** Where a frame lives, short: the part after the last node_modules/, else relative to the working directory. */
function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const at = path.lastIndexOf('/node_modules/');
  if (at >= 0) return path.slice(at + '/node_modules/'.length);
  return path.startsWith(process.cwd() + '/') ? path.slice(process.cwd().length + 1) : path;
}

/** Self time per function (name + file:line), summed over the samples, highest first. */
export function topSelfTime(profile: CpuProfile, top: number): SelfTime[] {
  const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFn = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  for (let k = 0; k < samples.length; k++) {
    const frame = frameOf.get(samples[k]!);
    // A sample's time is the delta to the next sample.
    const us = deltas[k + 1] ?? 0;
    if (!frame) continue;
    const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const fn = `${frame.functionName || '(anonymous)'}${where}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
    total += us;
  }
  return [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, ms: us / 1000, share: total ? us / total : 0 }));
}
