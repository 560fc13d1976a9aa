/**
 * Returns a copy of a response whose body runs `done` once it has been read to its end, failed
 * or been cancelled (the client went away): how a per-request server is closed after its SSE
 * stream without cutting it short. A failing `done` is ignored.
 */
export function closeWhenDone(response: Response, done: () => Promise<void>): Response {
  const finish = () => void done().catch(() => {});
  if (response.body === null) {
    finish();
    return response;
  }
  // The pipe settles once: at the body's end, on its error, or when the reader cancels the copy
  // (which cancels the body too).
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  response.body.pipeTo(writable).catch(() => {}).finally(finish);
  return new Response(readable, response); // status, status text and headers as they were
}
