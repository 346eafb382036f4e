// Waiting in tests for what another process or a background worker does.

/** Waits until `check` answers something, polling every 50 ms for about seven seconds. */
export async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}
