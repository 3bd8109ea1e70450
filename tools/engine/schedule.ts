// How the engine orders and overlaps steps: registrations after what they depend on, deletes
// in antichains (pkg/resource/deploy/step_generator.go: ScheduleDeletes), as many at once as
// `--parallel` allows (unbounded by default: deployment.opts.InfiniteParallelism()).

/**
 * Run `fn` for items `0..count-1`, each once every item it depends on (`depsOf`) has finished,
 * at most `parallel` at once, ready items started in index order. After a throw or a `true`
 * (stop) no new one starts: the ones running are waited for, then the first throw is passed
 * on. A cycle, which the engine's graph never holds, is an error here.
 */
export async function runGraph(
  count: number,
  depsOf: (index: number) => readonly number[],
  parallel: number,
  fn: (index: number) => Promise<boolean | void>,
): Promise<void> {
  const done = new Set<number>();
  const started = new Set<number>();
  let running = 0;
  let stop = false;
  let failure: { error: unknown } | undefined;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      if (!stop) {
        for (let i = 0; i < count && running < Math.max(1, parallel); i++) {
          if (started.has(i) || !depsOf(i).every((d) => done.has(d))) continue;
          started.add(i);
          running++;
          fn(i)
            .then(
              (r) => {
                if (r === true) stop = true;
              },
              (error: unknown) => {
                stop = true;
                failure ??= { error };
              },
            )
            .finally(() => {
              done.add(i);
              running--;
              pump();
            });
        }
      }
      if (running > 0) return;
      if (failure) reject(failure.error);
      else if (!stop && started.size < count) reject(new Error("the registrations depend on each other in a cycle"));
      else resolve();
    };
    pump();
  });
}

/**
 * The engine's ScheduleDeletes: rounds of deletes that may run at once. A resource is deleted
 * only after every condemned resource that depends on it: the engine builds the rounds from
 * the dependency-free end (`condemnedDependencies.IsEmpty()`), then reverses them.
 * `depsOf` gives, for each condemned item, the condemned items it depends on.
 */
export function deleteRounds(count: number, depsOf: (index: number) => readonly number[]): number[][] {
  const condemned = new Set(Array.from({ length: count }, (_, i) => i));
  const rounds: number[][] = [];
  while (condemned.size > 0) {
    const round = [...condemned].filter((i) => depsOf(i).every((d) => !condemned.has(d)));
    if (round.length === 0) throw new Error("the condemned resources depend on each other in a cycle");
    for (const i of round) condemned.delete(i);
    rounds.push(round);
  }
  return rounds.reverse();
}

/** Each round of `rounds` run with {@link runGraph} (no order inside a round), one after the other. */
export async function runRounds(rounds: number[][], parallel: number, fn: (index: number) => Promise<void>): Promise<void> {
  for (const round of rounds) await runGraph(round.length, () => [], parallel, (i) => fn(round[i]));
}
