/**
 * Collects what callers ask for during one turn of the event loop and hands it to `run` at once,
 * after the poll phase that produced it (`setImmediate`), at most `max` items per call. Each
 * caller gets the result at its own item's index; if `run` fails, every caller of that call gets
 * the error. Under load one Redis call serves tens of requests; a lone caller waits only for the
 * end of its own loop turn. (Request auth, delivery records and stream acknowledgements use it.)
 */
export class TurnBatcher<In, Out> {
  private pending: { item: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly max = Number.POSITIVE_INFINITY,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let i = 0; i < all.length; i += this.max) void this.call(all.slice(i, i + this.max));
  };

  private async call(batch: typeof this.pending): Promise<void> {
    let out: Out[];
    try {
      out = await this.run(batch.map((p) => p.item));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const [i, p] of batch.entries()) p.resolve(out[i] as Out);
  }
}
