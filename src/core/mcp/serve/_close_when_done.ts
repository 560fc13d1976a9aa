/**
 * Returns a copy of a response whose body runs `done` once it has been read to its end, failed
 * or been cancelled (the client went away): how a per-request server is closed after its SSE
 * stream without cutting it short. A failing `done` is ignored.
 */
export function closeWhenDone(response: Response, done: () => Promise<void>): Response {
  const body = response.body;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    void done().catch(() => {});
  };
  if (body === null) {
    finish();
    return response;
  }
  const reader = body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(stream, response); // status, status text and headers as they were
}
