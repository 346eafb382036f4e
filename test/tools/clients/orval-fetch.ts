// orval's fetch client with a custom fetch (`override.mutator`), orval's way to give generated calls a
// base URL chosen at run time: it returns what the generated functions promise, `{data, status,
// headers}`, with the body parsed as JSON when it is JSON and left as text otherwise.
export const customFetch = async <T>(path: string, options: RequestInit): Promise<T> => {
  const baseUrl = process.env.CALENDAR_URL ?? '';
  const response = await fetch(`${baseUrl}${path}`, options);
  const text = [204, 205, 304].includes(response.status) ? '' : await response.text();
  const data: unknown = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  return { data, status: response.status, headers: response.headers } as T;
};
