/**
 * A worker thread (`node:worker_threads`, which Node, Bun and Deno all
 * have) seen as plain callbacks, for work that must not hold up the event
 * loop: the script at a URL (a file, or a `data:` URL holding a bundled
 * script) runs on its own thread and can be ended at any moment.
 * @module
 */
import { Worker } from "node:worker_threads";

export interface WorkerThread {
  post(message: unknown): void;
  /** Ends the thread, whatever it is doing; no callback is called after it. */
  end(): void;
}

export interface WorkerEvents {
  message(message: unknown): void;
  /** The script failed to load or threw, or the thread exited before it was ended. */
  failed(reason: string): void;
}

/** Starts the script at `url` on a thread of its own. */
export function startWorkerThread(url: URL, events: WorkerEvents): WorkerThread {
  let ended = false;
  const worker = new Worker(url);
  // The thread never keeps the process alive: a process that is done exits even while it runs.
  worker.unref?.();
  worker.on("message", (message: unknown) => {
    if (!ended) events.message(message);
  });
  worker.on("error", (error: Error) => {
    if (!ended) events.failed(error?.message ?? String(error));
  });
  worker.on("exit", (code: number) => {
    if (!ended) events.failed(`the worker thread exited with code ${code}`);
  });
  return {
    post: (message) => worker.postMessage(message),
    end() {
      if (ended) return;
      ended = true;
      void worker.terminate().catch(() => undefined);
    },
  };
}
