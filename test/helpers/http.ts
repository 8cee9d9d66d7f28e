/** A response's JSON body, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests inspect bodies of any shape.
export async function readJson(response: Response): Promise<any> {
  return response.json();
}
