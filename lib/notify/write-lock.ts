/**
 * Serialises async sections: each runs after the previous one settled, and
 * a failed section does not block the next. One per adapter is enough: its
 * mutations (subscribe, unsubscribe, close) are rare and short.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section, section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
