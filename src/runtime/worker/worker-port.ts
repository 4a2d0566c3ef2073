/**
 * The inside of a worker thread (see worker-thread.ts): messages from the
 * thread that started it, and a way to answer.
 * @module
 */
import { parentPort } from "node:worker_threads";

export interface WorkerPort {
  post(message: unknown): void;
  onMessage(handle: (message: unknown) => void): void;
}

/** The port to the starting thread; undefined when this code does not run in a worker thread. */
export function workerPort(): WorkerPort | undefined {
  const port = parentPort;
  if (!port) return undefined;
  return {
    post: (message) => port.postMessage(message),
    onMessage: (handle) => void port.on("message", handle),
  };
}
