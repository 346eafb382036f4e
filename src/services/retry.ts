// Two writers can pass a service's checks at once; a unique index then rejects one of them, and it
// runs again and sees the other's row (a derived slug moves on to the next number).
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= attempts || (code !== 'P2002' && code !== '23505')) throw err;
    }
  }
}
